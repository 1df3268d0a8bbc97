# The browser page (crates/serve/assets), en: keys start with page-. Not translated yet; the
# page gets this area through gpuledger_lang::catalogue_json(lang, Area::Page).
# A workload's measured-vs-estimated gap in a member's why pane ($text: report-vs-with-cause).
page-gap-workload = the workload's { $count } processes together: { $text }
