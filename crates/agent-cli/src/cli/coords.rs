//! Points and regions as a person writes them on the command line.

use deft_types::{Logical, Point, Rect};

/// Parse `X,Y` (logical screen coordinates).
pub fn parse_point(s: &str) -> Result<Point<Logical>, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    match parts.as_slice() {
        [x, y] => match (x.parse::<i32>(), y.parse::<i32>()) {
            (Ok(x), Ok(y)) => Ok(Point::new(x, y)),
            _ => Err(format!("`{s}` is not X,Y in whole pixels, e.g. 640,400")),
        },
        _ => Err(format!("`{s}` is not X,Y, e.g. 640,400")),
    }
}

/// Parse `X,Y,W,H` (physical pixels).
pub fn parse_region(s: &str) -> Result<Rect<deft_types::Physical>, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let bad = || format!("`{s}` is not X,Y,W,H in whole pixels, e.g. 0,0,640,400");
    let [x, y, w, h] = parts.as_slice() else { return Err(bad()) };
    let (x, y) = (x.parse::<i32>().map_err(|_| bad())?, y.parse::<i32>().map_err(|_| bad())?);
    let (w, h) = (w.parse::<u32>().map_err(|_| bad())?, h.parse::<u32>().map_err(|_| bad())?);
    if w == 0 || h == 0 {
        return Err(format!("`{s}` is empty: the width and height must be more than 0"));
    }
    Ok(Rect::new(x, y, w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points() {
        assert_eq!(parse_point(" 10, -5"), Ok(Point::new(10, -5)));
        assert!(parse_point("10").unwrap_err().contains("not X,Y"));
        assert!(parse_point("a,b").unwrap_err().contains("whole pixels"));
    }

    #[test]
    fn regions() {
        assert_eq!(parse_region("1, 2,3,4"), Ok(Rect::new(1, 2, 3, 4)));
        assert!(parse_region("1,2,3").unwrap_err().contains("X,Y,W,H"));
        assert!(parse_region("1,2,0,4").unwrap_err().contains("more than 0"));
        assert!(parse_region("1,2,-3,4").is_err());
    }
}
