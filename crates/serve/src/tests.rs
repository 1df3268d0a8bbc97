//! `--interval` parsing.

use super::*;

#[test]
fn units_and_bounds() {
    assert_eq!(parse_interval("5s"), Ok(Duration::from_secs(5)));
    assert_eq!(parse_interval("500ms"), Ok(Duration::from_millis(500)));
    assert_eq!(parse_interval("2m"), Ok(Duration::from_secs(120)));
    assert_eq!(parse_interval("1.5s"), Ok(Duration::from_millis(1500)));
    assert_eq!(parse_interval("15"), Ok(Duration::from_secs(15)));
    assert!(parse_interval("5h").unwrap_err().contains("maximum of 1 h"));
    assert!(parse_interval("s").unwrap_err().contains("not a duration"));
    assert!(parse_interval("1.2.3s")
        .unwrap_err()
        .contains("not a duration"));
    assert!(parse_interval("10ms")
        .unwrap_err()
        .contains("minimum of 100 ms"));
    assert!(parse_interval("2h").is_err());
    assert!(parse_interval("99999999999999999999m")
        .unwrap_err()
        .contains("maximum"));
    assert!(parse_interval("-5s").is_err());
}

proptest::proptest! {
    #[test]
    fn never_panics_and_stays_in_bounds(s in "\\PC{0,12}") {
        if let Ok(d) = parse_interval(&s) {
            let b = gpuledger_model::time::REFRESH;
            proptest::prop_assert!(d >= b.min && d <= b.max);
        }
    }

    #[test]
    fn millis_round_trip(ms in 100u64..3_600_000) {
        proptest::prop_assert_eq!(parse_interval(&format!("{ms}ms")), Ok(Duration::from_millis(ms)));
    }
}
