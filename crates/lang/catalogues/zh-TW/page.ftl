# The browser page (crates/serve/assets), zh-TW: keys start with page-. Not translated yet; the
# page gets this area through gpuledger_lang::catalogue_json(lang, Area::Page).
