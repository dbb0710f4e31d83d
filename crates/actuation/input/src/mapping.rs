//! Explicit mapping from logical points and screenshot pixels to the physical pixels input uses.
//!
//! Logical to physical is a per-window [`ScaleFactor`]. A toolkit that scales a window
//! (GTK with `GDK_SCALE=2` on X11) reports screen coordinates divided by the scale, window
//! origin included, so a logical point times the scale is the physical point: no separate
//! offset. The scale cannot be read from the X server (Xvfb says 96 dpi, captures say 1.0);
//! [`window_scale`] derives it by comparing the window's size as accessibility reports it
//! with its size as the display server reports it (see [`crate::WindowLocator`]).

use deft_types::{Logical, Physical, Point, Rect, ScaleFactor, Screenshot, Size};

use crate::InputError;

/// A window's scale factor from its logical size (accessibility) and its physical size
/// (the display server). Snapped to quarter steps, which absorbs a border of a few pixels
/// on one side and not the other.
pub fn window_scale(logical: Size<Logical>, physical: Size<Physical>) -> Result<ScaleFactor, InputError> {
    ScaleFactor::from_sizes(logical, physical).map_err(|e| {
        InputError::Invalid(format!("cannot derive the scale of a window from {logical:?} and {physical:?}: {e}"))
    })
}

/// Where to click an element with logical `bounds` on a window of `scale`: the centre of the
/// physical pixels that cover it. Fails for an empty rectangle (a hidden element).
pub fn click_point(bounds: Rect<Logical>, scale: ScaleFactor) -> Result<Point<Physical>, InputError> {
    if bounds.is_empty() {
        return Err(InputError::Invalid(format!(
            "the element's bounds {bounds:?} cover no pixel; it is probably hidden or not laid out yet"
        )));
    }
    Ok(scale.rect_to_physical(bounds).center())
}

/// How the pixels of a screenshot relate to the physical screen: the screenshot shows
/// `area` (the whole screen or one window), possibly downscaled (e.g. for a vision model).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ScreenshotMapping {
    area: Rect<Physical>,
    image: Size<Screenshot>,
}

impl ScreenshotMapping {
    /// A screenshot of `image` pixels showing the physical `area`. Width and height may be
    /// scaled by different factors (downscaling rounds each on its own).
    pub fn new(area: Rect<Physical>, image: Size<Screenshot>) -> Result<ScreenshotMapping, InputError> {
        if area.is_empty() || image.w == 0 || image.h == 0 {
            return Err(InputError::Invalid(format!(
                "a screenshot of {image:?} showing {area:?} cannot be mapped: both need an area"
            )));
        }
        Ok(ScreenshotMapping { area, image })
    }

    /// Physical pixels per screenshot pixel, horizontally and vertically (2.0: downscaled by half).
    pub fn factors(&self) -> (f64, f64) {
        (f64::from(self.area.w) / f64::from(self.image.w), f64::from(self.area.h) / f64::from(self.image.h))
    }

    /// The physical pixel under the centre of screenshot pixel `p`.
    pub fn to_physical(&self, p: Point<Screenshot>) -> Point<Physical> {
        let (kx, ky) = self.factors();
        let map = |v: i32, k: f64, origin: i32| origin.saturating_add(clamp((f64::from(v) + 0.5) * k).floor() as i32);
        Point::new(map(p.x, kx, self.area.x), map(p.y, ky, self.area.y))
    }

    /// The screenshot pixel that shows physical pixel `p`.
    pub fn to_screenshot(&self, p: Point<Physical>) -> Point<Screenshot> {
        let (kx, ky) = self.factors();
        let map = |v: i32, k: f64, origin: i32| clamp((f64::from(v) - f64::from(origin)) / k).floor() as i32;
        Point::new(map(p.x, kx, self.area.x), map(p.y, ky, self.area.y))
    }

    /// The physical pixels a screenshot rectangle covers (rounded outward).
    pub fn rect_to_physical(&self, r: Rect<Screenshot>) -> Rect<Physical> {
        let (kx, ky) = self.factors();
        let x0 = clamp(f64::from(self.area.x) + f64::from(r.x) * kx).floor();
        let y0 = clamp(f64::from(self.area.y) + f64::from(r.y) * ky).floor();
        let x1 = clamp(f64::from(self.area.x) + r.right() as f64 * kx).ceil();
        let y1 = clamp(f64::from(self.area.y) + r.bottom() as f64 * ky).ceil();
        Rect::new(x0 as i32, y0 as i32, (x1 - x0) as u32, (y1 - y0) as u32)
    }
}

fn clamp(v: f64) -> f64 {
    v.clamp(f64::from(i32::MIN), f64::from(i32::MAX))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn scale(k: f64) -> ScaleFactor {
        ScaleFactor::new(k).unwrap()
    }

    #[test]
    fn the_gdk_scale_2_case() {
        // The fixture app's Hello button as GTK reports it at GDK_SCALE=2 (logical), and
        // the X client window: 1600 px wide for an 800-point window.
        let s = window_scale(Size::new(800, 600), Size::new(1600, 1200)).unwrap();
        assert_eq!(s.get(), 2.0);
        let hello: Rect<Logical> = Rect::new(30, 45, 120, 36);
        assert_eq!(click_point(hello, s).unwrap(), Point::new(180, 126));
        // A decoration border on one side does not change the derived scale.
        assert_eq!(window_scale(Size::new(802, 600), Size::new(1600, 1200)).unwrap().get(), 2.0);
        assert_eq!(window_scale(Size::new(800, 600), Size::new(800, 600)).unwrap().get(), 1.0);
        assert!(window_scale(Size::new(0, 600), Size::new(800, 600)).is_err());
    }

    #[test]
    fn hidden_elements_have_no_click_point() {
        let err = click_point(Rect::new(5, 5, 0, 10), ScaleFactor::ONE).unwrap_err();
        assert!(err.to_string().contains("hidden"), "{err}");
    }

    #[test]
    fn screenshot_of_a_window_downscaled_by_half() {
        let m = ScreenshotMapping::new(Rect::new(100, 50, 800, 600), Size::new(400, 300)).unwrap();
        assert_eq!(m.factors(), (2.0, 2.0));
        assert_eq!(m.to_physical(Point::new(0, 0)), Point::new(101, 51));
        assert_eq!(m.to_physical(Point::new(399, 299)), Point::new(899, 649));
        assert_eq!(m.to_screenshot(Point::new(101, 51)), Point::new(0, 0));
        assert_eq!(m.rect_to_physical(Rect::new(10, 10, 5, 5)), Rect::new(120, 70, 10, 10));
        assert!(ScreenshotMapping::new(Rect::new(0, 0, 10, 10), Size::new(0, 5)).is_err());
    }

    proptest! {
        #[test]
        fn logical_round_trip_at_whole_scales(k in 1u8..=4, x in -5000i32..5000, y in -5000i32..5000) {
            let s = scale(f64::from(k));
            let p: Point<Logical> = Point::new(x, y);
            prop_assert_eq!(s.to_logical(s.to_physical(p)), p);
        }

        #[test]
        fn clicks_land_inside_the_element(
            k in prop::sample::select(vec![1.0, 1.25, 1.5, 2.0, 3.0]),
            x in 0i32..4000, y in 0i32..4000, w in 1u32..500, h in 1u32..500,
        ) {
            let s = scale(k);
            let bounds: Rect<Logical> = Rect::new(x, y, w, h);
            let at = click_point(bounds, s).unwrap();
            prop_assert!(s.rect_to_physical(bounds).contains(at), "{:?} not in {:?}", at, s.rect_to_physical(bounds));
            if k.fract() == 0.0 {
                // At whole scales the physical pixel also maps back into the element.
                prop_assert!(bounds.contains(s.to_logical(at)));
            }
        }

        #[test]
        fn screenshot_pixels_round_trip_when_downscaled(
            ox in -2000i32..2000, oy in -2000i32..2000,
            iw in 1u32..1000, ih in 1u32..1000, kx in 1u32..4, ky in 1u32..4,
            fx in 0.0f64..1.0, fy in 0.0f64..1.0,
        ) {
            let m = ScreenshotMapping::new(Rect::new(ox, oy, iw * kx, ih * ky), Size::new(iw, ih)).unwrap();
            let p: Point<Screenshot> = Point::new((fx * f64::from(iw)) as i32, (fy * f64::from(ih)) as i32);
            let phys = m.to_physical(p);
            prop_assert!(Rect::<Physical>::new(ox, oy, iw * kx, ih * ky).contains(phys));
            prop_assert_eq!(m.to_screenshot(phys), p);
            prop_assert!(m.rect_to_physical(Rect::new(p.x, p.y, 1, 1)).contains(phys));
        }
    }
}
