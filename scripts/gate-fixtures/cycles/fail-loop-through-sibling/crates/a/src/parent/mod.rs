mod child;

pub struct Item;

pub fn make() -> u32 {
    child::helper()
}
