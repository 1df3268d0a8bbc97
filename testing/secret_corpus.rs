//! The secret corpus: every shape of secret that hostile testers found on command lines, in
//! process names and in environments (issue 25), and each provider's token format, with fake but
//! well-formed values built at run time: none is a real credential, and no literal token sits in
//! the repository for a scanner to flag. Beside it, harmless command lines, process names and
//! environment variables that must pass unchanged.
//!
//! Included with `#[path]` by the tests of every crate that writes process texts, so each output
//! (table, JSON, CSV, Prometheus, SQLite, history, diff, the live view, the kill prompt) is
//! checked against the same table.
#![allow(dead_code)]

pub const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub const B64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
pub const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
pub const HEX: &str = "0123456789abcdef";
pub const DIGITS: &str = "0123456789";
pub const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Deterministic pseudo-random text over `alphabet` (xorshift): the same on every run.
pub fn fake(seed: u64, len: usize, alphabet: &str) -> String {
    let a = alphabet.as_bytes();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            a[(x % a.len() as u64) as usize] as char
        })
        .collect()
}

/// A secret for a named shape: 16 characters mixing upper case, lower case and digits (so it
/// also reads as random where only that gives it away).
pub fn secret(seed: u64) -> String {
    format!("Zq9{}", fake(seed, 13, ALNUM))
}

/// One shape: a process's command line (and name, when the case is about a name) holding
/// `secrets`, none of which may appear in any output.
#[derive(Clone, Debug)]
pub struct Case {
    pub what: String,
    pub args: Vec<String>,
    /// A name the process gave itself (`comm`, a title, a Windows image name).
    pub name: Option<String>,
    pub secrets: Vec<String>,
}

fn case(what: &str, args: &[&str], secrets: &[&str]) -> Case {
    Case {
        what: what.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        name: None,
        secrets: secrets.iter().map(|s| s.to_string()).collect(),
    }
}

/// A JSON Web Token: a real header, a fake payload and signature (the secrets).
pub fn jwt(seed: u64) -> (String, [String; 2]) {
    let payload = format!("eyJ{}", fake(seed, 60, B64URL));
    let sig = fake(seed + 1, 43, B64URL);
    (
        format!("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{payload}.{sig}"),
        [payload, sig],
    )
}

/// A provider's token: (what, whole token, its secret body).
pub type Token = (&'static str, String, String);

fn token(what: &'static str, prefix: &str, body: String) -> Token {
    (what, format!("{prefix}{body}"), body)
}

/// Each provider's token format: code hosts, chat and clouds, then AI and other services.
pub fn provider_tokens() -> Vec<Token> {
    let mut v = host_chat_cloud_tokens();
    v.extend(service_tokens());
    v
}

/// GitHub, GitLab, Slack, AWS and Google.
fn host_chat_cloud_tokens() -> Vec<Token> {
    let t = token;
    vec![
        t("GitHub classic PAT", "ghp_", fake(101, 36, ALNUM)),
        t("GitHub OAuth", "gho_", fake(102, 36, ALNUM)),
        t("GitHub user-to-server", "ghu_", fake(103, 36, ALNUM)),
        t("GitHub server-to-server", "ghs_", fake(104, 36, ALNUM)),
        t("GitHub refresh", "ghr_", fake(105, 36, ALNUM)),
        t(
            "GitHub fine-grained PAT",
            "github_pat_",
            format!("{}_{}", fake(106, 22, ALNUM), fake(107, 59, ALNUM)),
        ),
        t("GitLab PAT", "glpat-", fake(108, 20, ALNUM)),
        t(
            "Slack bot",
            "xoxb-",
            format!(
                "{}-{}-{}",
                fake(109, 11, DIGITS),
                fake(110, 12, DIGITS),
                fake(111, 24, ALNUM)
            ),
        ),
        t(
            "Slack user",
            "xoxp-",
            format!(
                "{}-{}-{}-{}",
                fake(112, 11, DIGITS),
                fake(113, 11, DIGITS),
                fake(114, 12, DIGITS),
                fake(115, 32, HEX)
            ),
        ),
        t("Slack app", "xapp-1-", fake(116, 40, ALNUM)),
        t(
            "AWS access key id",
            "AKIA",
            format!("{}7", fake(117, 15, UPPER)),
        ),
        t(
            "AWS temporary key id",
            "ASIA",
            format!("{}3", fake(118, 15, UPPER)),
        ),
        t("Google API key", "AIza", fake(119, 35, B64URL)),
        t("Google OAuth access token", "ya29.", fake(120, 60, B64URL)),
    ]
}

/// AI providers, payments, package registries, mail and the rest.
fn service_tokens() -> Vec<Token> {
    let t = token;
    vec![
        t(
            "OpenAI legacy",
            "sk-",
            format!("{}T3BlbkFJ{}", fake(121, 20, ALNUM), fake(122, 20, ALNUM)),
        ),
        t("OpenAI project", "sk-proj-", fake(123, 80, B64URL)),
        t(
            "Anthropic",
            "sk-ant-api03-",
            format!("{}AA", fake(124, 93, B64URL)),
        ),
        t("Hugging Face", "hf_", fake(125, 34, LETTERS)),
        t("Hugging Face org", "api_org_", fake(126, 34, LETTERS)),
        t("Stripe secret", "sk_live_", fake(127, 24, ALNUM)),
        t("Stripe restricted", "rk_live_", fake(128, 24, ALNUM)),
        t("Stripe webhook secret", "whsec_", fake(129, 32, ALNUM)),
        t("npm", "npm_", fake(130, 36, ALNUM)),
        t("PyPI", "pypi-AgEIcHlwaS5vcmc", fake(131, 60, B64URL)),
        t(
            "SendGrid",
            "SG.",
            format!("{}.{}", fake(132, 22, B64URL), fake(133, 43, B64URL)),
        ),
        t("DigitalOcean", "dop_v1_", fake(134, 64, HEX)),
        t("Databricks", "dapi", fake(135, 32, HEX)),
        t("Perplexity", "pplx-", fake(136, 48, ALNUM)),
        t("Groq", "gsk_", fake(137, 52, ALNUM)),
        t("Replicate", "r8_", format!("Zq9{}", fake(138, 34, ALNUM))),
        t("xAI", "xai-", fake(139, 80, ALNUM)),
        t("NVIDIA API catalogue", "nvapi-", fake(140, 64, B64URL)),
        t("Grafana Cloud", "glc_", fake(141, 40, B64URL)),
    ]
}

/// Every command-line and process-name shape, then each provider format bare, after a neutral
/// option, inside a URL, a shell string and a JSON value.
pub fn cases() -> Vec<Case> {
    let s: Vec<String> = (0..64).map(secret).collect();
    let mut v = command_line_cases(&s);
    v.extend(bearer_cases(&s));
    v.extend(name_cases(&s));
    v.extend(provider_cases());
    v
}

/// Secrets on command lines: issue 25's shapes, connection strings, bare tokens, more clients.
fn command_line_cases(s: &[String]) -> Vec<Case> {
    let (jwt_text, jwt_secrets) = jwt(7);
    let hook_t = format!("T{}", fake(11, 10, UPPER));
    let hook_x = fake(12, 24, ALNUM);
    let hook = format!(
        "https://hooks.slack.com/services/{hook_t}/B{}/{hook_x}",
        fake(13, 10, UPPER)
    );
    let aws = format!("AKIA{}7", fake(14, 15, UPPER));
    let ghp = format!("ghp_{}", fake(15, 36, ALNUM));
    let xoxb = format!(
        "xoxb-{}-{}-{}",
        fake(16, 11, DIGITS),
        fake(17, 12, DIGITS),
        fake(18, 24, ALNUM)
    );
    let account_key = format!("Zq{}+/==", fake(19, 40, B64));
    let pem_body = fake(20, 64, B64);
    vec![
        // Issue 25: curl's glued short options.
        case("curl -HAuthorization: Bearer X", &["curl", &format!("-HAuthorization: Bearer {}", s[0]), "https://api.example.com/v1"], &[&s[0]]),
        case("curl -HAuthorization:Bearer X", &["curl", &format!("-HAuthorization:Bearer {}", s[1]), "https://api.example.com/v1"], &[&s[1]]),
        case("curl -uuser:X", &["curl", &format!("-uuser:{}", s[2]), "https://api.example.com/"], &[&s[2]]),
        case("sh -c curl -H 'Authorization:Bearer X'", &["sh", "-c", &format!("curl -H 'Authorization:Bearer {}' http://127.0.0.1:8080/v1/models", s[3])], &[&s[3]]),
        case("curl -H Authorization:Bearer X (one argument, no space)", &["curl", "-H", &format!("Authorization:Bearer {}", s[4]), "http://h/"], &[&s[4]]),
        // mysql-style -pX and -p X; --api-key "" X.
        case("mysql -pX", &["mysql", "-uroot", &format!("-p{}", s[5]), "app"], &[&s[5]]),
        case("mysql -p X", &["/usr/bin/mysql", "-u", "root", "-p", &s[6], "-h", "db"], &[&s[6]]),
        case("--api-key \"\" X", &["llama-server", "-m", "/models/m.gguf", "--api-key", "", &s[7]], &[&s[7]]),
        // Connection strings, URLs, fragments, environment-style assignments, nested JSON.
        case("Server=h;Password=X;", &["app", "--conn", &format!("Server=db.example;Database=x;User Id=sa;Password={};", s[8])], &[&s[8]]),
        case("AccountKey=X;", &["az", "--connection-string", &format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={account_key};EndpointSuffix=core.windows.net")], &[&account_key]),
        case("postgres://u:pa/X@h", &["psql", &format!("postgres://u:pa/{}@db.example:5432/app", s[9])], &[&s[9]]),
        case("#access_token=X", &["xdg-open", &format!("https://app.example/cb#access_token={}&token_type=bearer", s[10])], &[&s[10]]),
        case("DB_PASS=X", &["env", &format!("DB_PASS={}", s[11]), "python3", "app.py"], &[&s[11]]),
        case("--config '{\"auth\": {\"token\": \"X\"}}'", &["vllm", "serve", "Qwen/Qwen3-8B", "--config", &format!(r#"{{"auth": {{"token": "{}"}}}}"#, s[12])], &[&s[12]]),
        // Bare tokens with no name at all.
        case("a JWT", &["python3", "client.py", &jwt_text], &[&jwt_secrets[0], &jwt_secrets[1]]),
        case("an AWS key id", &["python3", "s3.py", &aws], &[&aws[4..]]),
        case("ghp_", &["tool", "upload", &ghp], &[&ghp[4..]]),
        case("xoxb-", &["notify", &xoxb], &[&xoxb[5..]]),
        case("a Slack webhook URL", &["notify", "--url", &hook], &[&hook_t, &hook_x]),
        // More clients and shapes the detector must know.
        case("wget --password=X", &["wget", "--user=me", &format!("--password={}", s[13]), "https://h/f"], &[&s[13]]),
        case("redis-cli -a X", &["redis-cli", "-h", "cache", "-a", &s[14], "ping"], &[&s[14]]),
        case("mongosh URL", &["mongosh", &format!("mongodb+srv://app:{}@cluster0.example.net/db", s[15])], &[&s[15]]),
        case("mongosh -p X", &["mongosh", "--host", "h", "-u", "me", "-p", &s[16]], &[&s[16]]),
        case("?token=X", &["curl", &format!("https://h.example/api?model=m&token={}", s[17])], &[&s[17]]),
        case("Pwd={X} (ODBC)", &["isql", &format!("Driver={{ODBC Driver 18}};Server=h;Uid=u;Pwd={{{}}};", s[18])], &[&s[18]]),
        case("SharedAccessKey=X", &["app", &format!("Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={}=", s[19])], &[&s[19]]),
        case("psql conninfo", &["psql", &format!("host=db port=5432 user=app password={} dbname=x", s[20])], &[&s[20]]),
        case("nested JSON in sh -c", &["sh", "-c", &format!(r#"python3 serve.py --config '{{"auth": {{"token": "{}"}}}}'"#, s[21])], &[&s[21]]),
        case("high entropy after --session", &["app", "--session", &s[22]], &[&s[22]]),
        case("java -D...password=X", &["java", &format!("-Dspring.datasource.password={}", s[23]), "-jar", "app.jar"], &[&s[23]]),
        case("docker login -p X", &["docker", "login", "-u", "me", "-p", &s[24], "registry.example"], &[&s[24]]),
        case("sshpass -pX", &["sshpass", &format!("-p{}", s[25]), "ssh", "h"], &[&s[25]]),
        case("docker -e HF_TOKEN=X", &["docker", "run", "--gpus", "all", "-e", &format!("HF_TOKEN={}", s[26]), "img"], &[&s[26]]),
        case("--header=X-Api-Key: X", &["curl", &format!("--header=X-Api-Key: {}", s[27]), "http://h/"], &[&s[27]]),
        case("curl -b cookie", &["curl", "-b", &format!("session={}", s[28]), "http://h/"], &[&s[28]]),
        case("sh -c mysql -pX", &["sh", "-c", &format!("mysql -uroot -p{} app < dump.sql", s[29])], &[&s[29]]),
        case("YAML password: X in a shell string", &["sh", "-c", &format!("echo 'password: {}' > /tmp/c.yaml", s[30])], &[&s[30]]),
        case("PEM private key", &["app", "--key-data", &format!("-----BEGIN PRIVATE KEY-----\n{pem_body}\n-----END PRIVATE KEY-----")], &[&pem_body]),
        case("git -c http.extraHeader", &["git", "-c", &format!("http.extraHeader=Authorization: Basic {}", s[31]), "clone", "https://git.example/r"], &[&s[31]]),
        case("--api-key X", &["llama-server", "--api-key", &s[32], "--port", "8080"], &[&s[32]]),
        case("--token=X", &["x", &format!("--token={}", s[33])], &[&s[33]]),
        case("https://user:X@host", &["x", &format!("https://user:{}@host.example/v1", s[34])], &[&s[34]]),
        case("redis URL with an empty user", &["app", &format!("redis://:{}@cache:6379/0", s[35])], &[&s[35]]),
        case("sig=X", &["wget", &format!("https://acct.blob.core.windows.net/c/m.gguf?sv=2024&sig={}&se=1", s[36])], &[&s[36]]),
        case("-H, Authorization: and Bearer X as separate arguments", &["curl", "-H", "Authorization:", &format!("Bearer {}", s[37])], &[&s[37]]),
    ]
}

/// Issue 40: the bearer family in its other spellings (an `Authorization` header written as an
/// argument, a bare `Bearer X`, URL-encoded headers).
fn bearer_cases(s: &[String]) -> Vec<Case> {
    vec![
        case(
            "Authorization=Bearer X (one argument)",
            &["tool", &format!("Authorization=Bearer {}", s[46])],
            &[&s[46]],
        ),
        case(
            "Authorization=Bearer and X as separate arguments",
            &["tool", "Authorization=Bearer", &s[47]],
            &[&s[47]],
        ),
        case(
            "a bare Bearer X argument",
            &["python3", "client.py", &format!("Bearer {}", s[48])],
            &[&s[48]],
        ),
        case(
            "bare Bearer and X as separate arguments",
            &["python3", "client.py", "bearer", &s[49]],
            &[&s[49]],
        ),
        case(
            "--header=Authorization=Bearer X",
            &[
                "curl",
                &format!("--header=Authorization=Bearer {}", s[50]),
                "http://h/",
            ],
            &[&s[50]],
        ),
        case(
            "Authorization = Bearer X in a shell string",
            &[
                "sh",
                "-c",
                &format!("python3 c.py Authorization = Bearer {}", s[51]),
            ],
            &[&s[51]],
        ),
        case(
            "Authorization = Bearer X as separate arguments",
            &["tool", "Authorization", "=", "Bearer", &s[52]],
            &[&s[52]],
        ),
        case(
            "URL-encoded Authorization%3A%20Bearer X",
            &[
                "xdg-open",
                &format!(
                    "https://proxy.example/fetch?h=Authorization%3A%20Bearer%20{}&u=1",
                    s[53]
                ),
            ],
            &[&s[53]],
        ),
        case(
            "URL-encoded Authorization%3A+Bearer+X",
            &["tool", &format!("Authorization%3a+bearer+{}", s[54])],
            &[&s[54]],
        ),
        case(
            "URL-encoded Authorization%3A%20Basic X",
            &[
                "tool",
                &format!("--url=https://h/?x=Authorization%3A%20Basic%20{}", s[55]),
            ],
            &[&s[55]],
        ),
    ]
}

/// Process names and titles a process gave itself.
fn name_cases(s: &[String]) -> Vec<Case> {
    let (jwt_text, jwt_secrets) = jwt(7);
    let names = [
        (
            "title --token=X",
            format!("--token={}", s[40]),
            vec![s[40].clone()],
        ),
        (
            "title with a command line",
            format!("python3 --api-key {}", s[41]),
            vec![s[41].clone()],
        ),
        (
            "comm cut from a ghp_ token",
            format!("ghp_{}", fake(42, 11, ALNUM)),
            vec![fake(42, 11, ALNUM)],
        ),
        (
            "comm cut from an AWS key id",
            format!("AKIA{}7", fake(43, 10, UPPER)),
            vec![format!("{}7", fake(43, 10, UPPER))],
        ),
        (
            "comm cut from an xoxb token",
            format!("xoxb-{}", fake(44, 10, DIGITS)),
            vec![fake(44, 10, DIGITS)],
        ),
        ("a JWT as a name", jwt_text.clone(), jwt_secrets.to_vec()),
        (
            "title DB_PASS=X",
            format!("DB_PASS={}", s[45]),
            vec![s[45].clone()],
        ),
        (
            "title Bearer X",
            format!("Bearer {}", s[56]),
            vec![s[56].clone()],
        ),
    ];
    names
        .into_iter()
        .map(|(what, name, secrets)| Case {
            what: what.into(),
            args: vec!["python3".into(), "worker.py".into()],
            name: Some(name),
            secrets,
        })
        .collect()
}

/// Each provider format: bare, after a neutral option, in a URL's userinfo, in a shell string
/// and as a JSON value under a neutral key.
fn provider_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (i, (what, token, body)) in provider_tokens().into_iter().enumerate() {
        let shell = format!("export X={token}; exec worker");
        let json = format!(r#"{{"value": "{token}"}}"#);
        let url = format!("https://x-access-token:{token}@git.example/o/r.git");
        let args: Vec<String> = match i % 5 {
            0 => vec!["tool".into(), "upload".into(), token],
            1 => vec!["tool".into(), "--with".into(), token],
            2 => vec!["git".into(), "clone".into(), url],
            3 => vec!["sh".into(), "-c".into(), shell],
            _ => vec!["tool".into(), "--config".into(), json],
        };
        v.push(Case {
            what: what.into(),
            args,
            name: None,
            secrets: vec![body],
        });
    }
    v
}

/// Harmless command lines that must pass unchanged.
pub fn harmless() -> Vec<Vec<String>> {
    let t: Vec<Vec<&str>> = vec![
        vec!["/opt/llama/llama-server", "-m", "/models/Qwen3-8B-Q4_K_M.gguf", "-c", "32768", "-ngl", "99", "--port", "8080", "-p", "Hello", "--top-k", "40", "--cache-type-k", "q8_0", "--cache-type-v", "q8_0", "-fa", "on", "-np", "4", "--keep", "-1", "-a", "qwen"],
        vec!["llama-server", "--host", "0.0.0.0", "--port", "8080", "--hf-repo", "unsloth/Qwen3-8B-GGUF", "--hf-file", "Qwen3-8B-Q4_K_M.gguf", "--ssl-key-file", "/etc/ssl/k.pem"],
        vec!["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--max-num-batched-tokens", "8192", "--tokenizer", "meta-llama/Llama-3.1-8B-Instruct", "--kv-cache-dtype", "fp8", "--gpu-memory-utilization", "0.9"],
        vec!["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--tp", "2", "--mem-fraction-static", "0.8", "--tokenizer-path", "Qwen/Qwen2.5-7B-Instruct"],
        vec!["/usr/lib/xorg/Xorg", "-nolisten", "tcp", ":0", "-auth", "/var/run/sddm/{c4f1a2b3-0d9e-4f7a-8b6c-5d4e3f2a1b0c}", "vt1"],
        vec!["docker", "run", "--gpus", "all", "-p", "8080:80", "-u", "1000:1000", "-v", "/data:/data", "-e", "CUDA_VISIBLE_DEVICES=GPU-11111111-2222-3333-4444-555555555555", "img"],
        vec!["/usr/local/bin/ollama", "runner", "--model", "/usr/share/ollama/.ollama/models/blobs/sha256-6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa", "--ctx-size", "8192", "--port", "41235"],
        vec!["python3", "train.py", "--run-id", "3f2a9c1e-7b4d-4e8a-9f0c-1d2e3f4a5b6c", "--max-tokens", "512", "--eos-token", "</s>", "--seed", "42", "--key-cache", "fp16"],
        vec!["env", "PWD=/home/alice/work", "OLDPWD=/home/alice", "PATH=/usr/bin", "python3", "x.py"],
        vec!["ffmpeg", "-hwaccel", "cuda", "-i", "in.mp4", "-c:v", "h264_nvenc", "-pass", "1", "out.mp4"],
        vec!["ssh", "-i", "/home/a/.ssh/id_ed25519", "-p", "2222", "gpu-box"],
        vec!["python3", "-u", "train.py", "--device", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"],
        vec!["torchrun", "--nproc-per-node", "8", "--master-addr", "10.0.0.1", "--master-port", "29500", "train.py"],
        vec!["nvidia-smi", "--query-gpu=uuid,memory.used", "--format=csv"],
        vec!["curl", "-H", "Accept: application/json", "-H", "Content-Type: application/json", "http://127.0.0.1:8080/v1/models"],
        vec!["wget", "https://huggingface.co/Qwen/Qwen3-8B-GGUF/resolve/main/Qwen3-8B-Q4_K_M.gguf?download=true"],
        vec!["npm", "install", "https://registry.npmjs.org/@scope/pkg/-/pkg-1.0.0.tgz"],
        vec!["git", "clone", "git@github.com:org/repo.git"],
        vec!["python3", "app.py", "--keyboard-layout", "us", "--keywords", "a,b", "--author", "Alice"],
        vec!["python3", "-c", "import torch; print(torch.cuda.is_available())"],
        vec!["redis-cli", "-p", "6379", "ping"],
        vec!["mysql", "-h", "db", "-P", "3306", "-u", "app", "app"],
        vec!["/usr/bin/python3", "/opt/app/main.py", "--password-file", "/run/secrets/db", "--auth-type", "oauth", "--token-url", "https://idp.example/oauth/token"],
        vec!["app", "--api-base", "http://localhost:8000/v1", "--session-name", "training-run-7"],
        vec!["pip", "install", "scikit-learn", "hf_transfer"],
        vec!["ollama", "run", "qwen3:8b"],
        vec!["jupyter", "lab", "--ServerApp.token="],
        vec!["sh", "-c", "exec python3 -m http.server 8000"],
        vec!["python3", "serve.py", "--model", "/models/blobs/sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
        vec!["gst-launch-1.0", "videotestsrc", "!", "nvh264enc", "!", "fakesink"],
        // Auth scheme names as plain words (issue 40's bearer rules must not hide prose).
        vec!["python3", "app.py", "--title", "Bearer of bad news", "--mode", "basic", "--auth-type", "Bearer"],
    ];
    t.into_iter()
        .map(|a| a.into_iter().map(String::from).collect())
        .collect()
}

/// Harmless process names that must pass unchanged.
pub fn harmless_names() -> Vec<&'static str> {
    vec![
        "llama-server",
        "python3",
        "Xorg",
        "ollama_llama_se",
        "VLLM::EngineCor",
        "pt_main_thread",
        "gnome-shell",
        "kwin_wayland",
        "sk-runner",
        "docker-proxy",
        "Xwayland",
        "firefox",
        "chrome.exe",
        "Code Helper (GPU)",
        "hf_worker",
    ]
}

/// Environment variables for the environment view: (name, value, the secret inside or `None`
/// for a harmless one shown as it is).
pub fn environment() -> Vec<(String, String, Option<String>)> {
    let (jwt_text, _) = jwt(77);
    let s: Vec<String> = (200..216).map(secret).collect();
    let ghp = format!("ghp_{}", fake(78, 36, ALNUM));
    let hook = format!(
        "https://hooks.slack.com/services/T{}/B{}/{}",
        fake(79, 10, UPPER),
        fake(80, 10, UPPER),
        fake(81, 24, ALNUM)
    );
    let hidden = |n: &str, v: &str| (n.to_string(), v.to_string(), Some(v.to_string()));
    vec![
        hidden("MY_JWT", &jwt_text),
        hidden("SESSION", &s[0]),
        hidden("DB_PASS", &s[1]),
        hidden("PASSPHRASE", &s[2]),
        hidden("GITHUB_PAT", &ghp),
        hidden("DATABASE_URL", &format!("postgres://app:{}@db/app", s[3])),
        hidden("CONN", &format!("Server=h;Password={};", s[4])),
        hidden("SLACK_WEBHOOK", &hook),
        hidden("HF_TOKEN", &format!("hf_{}", fake(82, 34, LETTERS))),
        hidden("LLAMA_ARG_API_KEY", &s[5]),
        hidden("VLLM_API_KEY", &s[6]),
        hidden("OLLAMA_AUTH_TOKEN", &s[7]),
        // A safe name whose value holds a secret: shown, with the secret redacted.
        (
            "OLLAMA_HOST".into(),
            format!("https://me:{}@ollama.example:11434", s[8]),
            Some(s[8].clone()),
        ),
        ("PATH".into(), "/usr/local/bin:/usr/bin".into(), None),
        ("PWD".into(), "/home/alice/work".into(), None),
        ("HOME".into(), "/home/alice".into(), None),
        ("LANG".into(), "en_US.UTF-8".into(), None),
        ("LC_ALL".into(), "C.UTF-8".into(), None),
        (
            "CUDA_VISIBLE_DEVICES".into(),
            "GPU-11111111-2222-3333-4444-555555555555".into(),
            None,
        ),
        ("LLAMA_ARG_CTX_SIZE".into(), "4096".into(), None),
        ("OLLAMA_KEEP_ALIVE".into(), "5m".into(), None),
        (
            "PYTORCH_CUDA_ALLOC_CONF".into(),
            "expandable_segments:True".into(),
            None,
        ),
        ("HF_HOME".into(), "/data/hf".into(), None),
        ("TOKENIZERS_PARALLELISM".into(), "false".into(), None),
    ]
}
