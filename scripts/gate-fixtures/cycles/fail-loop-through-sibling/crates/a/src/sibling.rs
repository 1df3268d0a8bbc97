#[cfg(test)]
mod early {
    #[test]
    fn holds() {}
}

use crate::parent::Item;

pub fn leaf() -> u32 {
    let _ = Item;
    1
}
