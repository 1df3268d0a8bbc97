use super::text::*;

pub fn render() -> usize {
    width()
}
