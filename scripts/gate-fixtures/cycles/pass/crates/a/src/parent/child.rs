use super::Item;
use crate::sibling::Leaf;

// crate::parent::make in a comment names nothing.
pub fn helper() -> u32 {
    let _ = (Item, Leaf, "crate::parent::make");
    1
}
