// procfs reader: being written.
