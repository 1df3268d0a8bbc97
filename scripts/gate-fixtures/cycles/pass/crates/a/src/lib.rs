//! No circle: a child reads its ancestor (exempt), the parent reads the child.

mod parent;
mod sibling;

pub use parent::Item;
