pub fn helper() -> u32 {
    crate::sibling::leaf()
}
