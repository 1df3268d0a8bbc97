"""A tiny random-weight Llama model vLLM can serve, made offline (crates/cli/tests/cli/vllm_real.rs).

Usage: python vllm_tiny_model.py OUT_DIR   (run with the vLLM venv's python: transformers and
tokenizers come with vLLM). Two layers, 128 wide, 4 query and 2 KV heads, a 512-token BPE
vocabulary trained here on one sentence: nothing is downloaded.
"""
import sys

from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

out = sys.argv[1]
tok = Tokenizer(models.BPE(unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.ByteLevel()
trainer = trainers.BpeTrainer(vocab_size=512, special_tokens=["<unk>", "<s>", "</s>"])
tok.train_from_iterator(["the quick brown fox jumps over the lazy dog"] * 50, trainer)
fast = PreTrainedTokenizerFast(
    tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>"
)
fast.chat_template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
cfg = LlamaConfig(
    vocab_size=512,
    hidden_size=128,
    intermediate_size=256,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=2048,
    bos_token_id=1,
    eos_token_id=2,
    torch_dtype="float32",
)
LlamaForCausalLM(cfg).save_pretrained(out, safe_serialization=True)
fast.save_pretrained(out)
