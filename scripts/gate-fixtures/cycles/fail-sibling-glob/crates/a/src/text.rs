pub fn width() -> usize {
    1
}
