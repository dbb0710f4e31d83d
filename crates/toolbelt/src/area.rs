//! The part of the screen a screenshot or OCR covers, from its parameters.

use deft_capture::{CaptureTarget, WindowRef};
use deft_types::{Physical, Rect};

use crate::error::ToolError;
use crate::params::AreaParams;
use crate::spelling::Spelling;

/// A window, a region, a monitor, or the whole screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Area {
    /// The whole screen.
    Screen,
    /// A window by title or X id.
    Window(WindowRef),
    /// A rectangle in physical pixels.
    Region(Rect<Physical>),
    /// A monitor by name.
    Monitor(String),
}

impl Area {
    /// The area the parameters name; more than one, or an empty or negative one, is a usage error.
    pub fn from_params(p: &AreaParams, sp: &dyn Spelling) -> Result<Area, ToolError> {
        let given = [p.window.is_some(), p.region.is_some(), p.monitor.is_some()].iter().filter(|g| **g).count();
        if given > 1 {
            return Err(ToolError::usage(format!(
                "give one of {}, {} or {}, not several",
                sp.field("window"),
                sp.field("region"),
                sp.field("monitor")
            )));
        }
        if let Some(w) = &p.window {
            if w.trim().is_empty() {
                return Err(ToolError::usage(format!(
                    "{} is empty; give a window title, e.g. \"Deft Fixture\"",
                    sp.field("window")
                )));
            }
            return Ok(match w.strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok()) {
                Some(id) => Area::Window(WindowRef::Id(id)),
                None => Area::Window(WindowRef::Title(w.clone())),
            });
        }
        if let Some([x, y, w, h]) = p.region {
            let fits = |v: i64| i32::try_from(v).is_ok();
            if w <= 0 || h <= 0 || !fits(x) || !fits(y) || !fits(w) || !fits(h) {
                return Err(ToolError::usage(format!(
                    "{} must be x, y, width, height with width and height more than 0, e.g. 0,0,640,400",
                    sp.field("region")
                )));
            }
            return Ok(Area::Region(Rect::new(x as i32, y as i32, w as u32, h as u32)));
        }
        if let Some(m) = &p.monitor {
            return Ok(Area::Monitor(m.clone()));
        }
        Ok(Area::Screen)
    }

    /// As deft-capture names it.
    pub fn capture_target(&self) -> CaptureTarget {
        match self {
            Area::Screen => CaptureTarget::Screen,
            Area::Window(w) => CaptureTarget::Window(w.clone()),
            Area::Region(r) => CaptureTarget::Region(*r),
            Area::Monitor(m) => CaptureTarget::Monitor(m.clone()),
        }
    }

    /// `the screen`, `window "Deft Fixture"`, `region 0,0,640,400`.
    pub fn words(&self) -> String {
        match self {
            Area::Screen => "the screen".into(),
            Area::Window(w) => format!("window {w}"),
            Area::Region(r) => format!("region {},{},{},{}", r.x, r.y, r.w, r.h),
            Area::Monitor(m) => format!("monitor {m:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spelling::{AsFlags, AsParams};

    #[test]
    fn areas() {
        let p = |window: Option<&str>, region: Option<[i64; 4]>| AreaParams {
            window: window.map(str::to_string),
            region,
            monitor: None,
        };
        assert_eq!(Area::from_params(&p(Some("0x2a"), None), &AsParams).unwrap(), Area::Window(WindowRef::Id(42)));
        assert_eq!(
            Area::from_params(&p(Some("Deft Fixture"), None), &AsParams).unwrap(),
            Area::Window(WindowRef::Title("Deft Fixture".into()))
        );
        assert_eq!(Area::from_params(&p(None, None), &AsParams).unwrap(), Area::Screen);
        let e = Area::from_params(&p(Some(" "), None), &AsFlags).unwrap_err();
        assert!(e.message.starts_with("--window is empty"), "{e}");
        let e = Area::from_params(&p(None, Some([0, 0, 0, 4])), &AsParams).unwrap_err();
        assert!(e.message.contains("`region` must be"), "{e}");
        let e = Area::from_params(&p(Some("a"), Some([0, 0, 1, 1])), &AsParams).unwrap_err();
        assert!(e.message.contains("not several"), "{e}");
    }
}
