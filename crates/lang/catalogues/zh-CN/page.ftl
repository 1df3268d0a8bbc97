# The browser page (crates/serve/assets), zh-CN: keys start with page-. Not translated yet; the
# page gets this area through gpuledger_lang::catalogue_json(lang, Area::Page).
# A workload's measured-vs-estimated gap in a member's why pane ($text: report-vs-with-cause).
page-gap-workload = 该工作负载的 { $count } 个进程合计：{ $text }
