//! Lengths of time as a person writes them on the command line: milliseconds, or a number
//! with its unit (`20s`, `1.5s`, `500ms`, `2m`). A bare number stays milliseconds, as every
//! earlier script wrote it.

/// Parse a length of time into milliseconds.
pub fn parse_millis(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let per_unit = match unit.trim() {
        "" | "ms" => 1.0,
        "s" | "sec" | "secs" => 1_000.0,
        "m" | "min" | "mins" => 60_000.0,
        other => {
            return Err(format!("`{s}`: unknown unit `{other}`; give milliseconds (20000) or a unit: 20s, 500ms, 2m"));
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a length of time; give milliseconds (20000) or a unit: 20s, 500ms, 2m"))?;
    let ms = (value * per_unit).round();
    if !(0.0..=u64::MAX as f64 / 2.0).contains(&ms) {
        return Err(format!("`{s}` is too long"));
    }
    Ok(ms as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_millis;

    #[test]
    fn numbers_are_milliseconds_and_units_are_read() {
        assert_eq!(parse_millis("20000"), Ok(20_000));
        assert_eq!(parse_millis("20s"), Ok(20_000));
        assert_eq!(parse_millis("1.5s"), Ok(1_500));
        assert_eq!(parse_millis("500ms"), Ok(500));
        assert_eq!(parse_millis("2m"), Ok(120_000));
        assert_eq!(parse_millis(" 3 s"), Ok(3_000));
    }

    #[test]
    fn what_is_not_a_length_of_time_says_how_to_write_one() {
        for bad in ["soon", "20h", "-5", "1e3", ""] {
            let e = parse_millis(bad).expect_err(bad);
            assert!(e.contains("20s"), "{bad}: {e}");
        }
    }
}
