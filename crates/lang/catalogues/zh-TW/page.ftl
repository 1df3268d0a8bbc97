# The browser page (crates/serve/assets), zh-TW: keys start with page-. Not translated yet; the
# page gets this area through gpuledger_lang::catalogue_json(lang, Area::Page).
# A workload's measured-vs-estimated gap in a member's why pane ($text: report-vs-with-cause).
page-gap-workload = 該工作負載的 { $count } 個行程合計：{ $text }
