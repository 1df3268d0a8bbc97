# The live view (crates/tui), zh-CN: keys start with tui-. Not translated yet; the next change
# adds its messages here (English first, then zh-CN and zh-TW key for key).
