//! Points, sizes and rectangles tagged with the coordinate space they live in.

use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Serialize};

/// A coordinate space. Implemented only by the marker types of this module.
pub trait CoordSpace: Copy + Eq + fmt::Debug + Default + Send + Sync + 'static {
    /// Short name used in `Debug` output and error messages.
    const NAME: &'static str;
}

/// Logical points: what accessibility APIs (AT-SPI, UIA, AX) report.
/// One logical point is `scale` physical pixels on a window with that scale factor.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Logical;
/// Physical pixels on the screen: what the X server, input injection and captures use.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Physical;
/// Pixels of a (possibly downscaled) screenshot, e.g. the image given to a vision model.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Screenshot;

impl CoordSpace for Logical {
    const NAME: &'static str = "logical";
}
impl CoordSpace for Physical {
    const NAME: &'static str = "physical";
}
impl CoordSpace for Screenshot {
    const NAME: &'static str = "screenshot";
}

/// A point in space `S`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Point<S: CoordSpace> {
    /// Horizontal coordinate, growing to the right.
    pub x: i32,
    /// Vertical coordinate, growing downwards.
    pub y: i32,
    #[serde(skip)]
    space: PhantomData<S>,
}

/// A size in space `S`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Size<S: CoordSpace> {
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
    #[serde(skip)]
    space: PhantomData<S>,
}

/// An axis-aligned rectangle in space `S`. Serialized as `[x, y, w, h]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rect<S: CoordSpace> {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width; zero for an empty rectangle.
    pub w: u32,
    /// Height; zero for an empty rectangle.
    pub h: u32,
    space: PhantomData<S>,
}

impl<S: CoordSpace> Point<S> {
    /// A point at `(x, y)`.
    pub const fn new(x: i32, y: i32) -> Self {
        Point { x, y, space: PhantomData }
    }

    /// The same point moved by `(dx, dy)`, saturating at the `i32` range.
    pub fn offset(self, dx: i32, dy: i32) -> Self {
        Point::new(self.x.saturating_add(dx), self.y.saturating_add(dy))
    }
}

impl<S: CoordSpace> Size<S> {
    /// A size of `w` by `h`.
    pub const fn new(w: u32, h: u32) -> Self {
        Size { w, h, space: PhantomData }
    }
}

impl<S: CoordSpace> Rect<S> {
    /// A rectangle with its top-left corner at `(x, y)`.
    pub const fn new(x: i32, y: i32, w: u32, h: u32) -> Self {
        Rect { x, y, w, h, space: PhantomData }
    }

    /// `true` when the rectangle covers no pixel.
    pub const fn is_empty(&self) -> bool {
        self.w == 0 || self.h == 0
    }

    /// One past the right edge, computed without overflow.
    pub fn right(&self) -> i64 {
        i64::from(self.x) + i64::from(self.w)
    }

    /// One past the bottom edge, computed without overflow.
    pub fn bottom(&self) -> i64 {
        i64::from(self.y) + i64::from(self.h)
    }

    /// The centre, rounded towards the top-left.
    pub fn center(&self) -> Point<S> {
        let cx = i64::from(self.x) + i64::from(self.w / 2);
        let cy = i64::from(self.y) + i64::from(self.h / 2);
        Point::new(clamp_i32(cx), clamp_i32(cy))
    }

    /// The top-left corner.
    pub fn origin(&self) -> Point<S> {
        Point::new(self.x, self.y)
    }

    /// Whether `p` lies inside (the right and bottom edges are exclusive).
    pub fn contains(&self, p: Point<S>) -> bool {
        let (x, y) = (i64::from(p.x), i64::from(p.y));
        x >= i64::from(self.x) && y >= i64::from(self.y) && x < self.right() && y < self.bottom()
    }

    /// Whether `other` lies entirely inside (an empty `other` is inside anything).
    pub fn contains_rect(&self, other: &Rect<S>) -> bool {
        other.is_empty()
            || (i64::from(other.x) >= i64::from(self.x)
                && i64::from(other.y) >= i64::from(self.y)
                && other.right() <= self.right()
                && other.bottom() <= self.bottom())
    }

    /// The overlap of two rectangles, or `None` when they do not overlap.
    pub fn intersection(&self, other: &Rect<S>) -> Option<Rect<S>> {
        let x0 = i64::from(self.x).max(i64::from(other.x));
        let y0 = i64::from(self.y).max(i64::from(other.y));
        let x1 = self.right().min(other.right());
        let y1 = self.bottom().min(other.bottom());
        (x1 > x0 && y1 > y0).then(|| Rect::from_edges(x0, y0, x1, y1))
    }

    /// The smallest rectangle containing both.
    pub fn union(&self, other: &Rect<S>) -> Rect<S> {
        if self.is_empty() {
            return *other;
        }
        if other.is_empty() {
            return *self;
        }
        let x0 = i64::from(self.x).min(i64::from(other.x));
        let y0 = i64::from(self.y).min(i64::from(other.y));
        let x1 = self.right().max(other.right());
        let y1 = self.bottom().max(other.bottom());
        Rect::from_edges(x0, y0, x1, y1)
    }

    /// Largest distance any edge moved between two rectangles: used to tell bounds
    /// jitter of a few pixels from a real move.
    pub fn max_edge_delta(&self, other: &Rect<S>) -> u64 {
        let d = |a: i64, b: i64| a.abs_diff(b);
        d(self.x.into(), other.x.into())
            .max(d(self.y.into(), other.y.into()))
            .max(d(self.right(), other.right()))
            .max(d(self.bottom(), other.bottom()))
    }

    fn from_edges(x0: i64, y0: i64, x1: i64, y1: i64) -> Rect<S> {
        let x = clamp_i32(x0);
        let y = clamp_i32(y0);
        let w = u32::try_from(x1 - i64::from(x)).unwrap_or(u32::MAX);
        let h = u32::try_from(y1 - i64::from(y)).unwrap_or(u32::MAX);
        Rect::new(x, y, w, h)
    }
}

fn clamp_i32(v: i64) -> i32 {
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// How many physical pixels make one logical point on one window.
///
/// Always finite and positive. It is per window: on X11 with `GDK_SCALE=2` one app's
/// windows are scaled and another's are not, and the X server's DPI says nothing about it.
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct ScaleFactor(f64);

/// A scale factor that is not finite and positive, or a rectangle that does not fit.
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleError(pub String);

impl fmt::Display for ScaleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScaleError {}

impl ScaleFactor {
    /// Scale 1: logical points are physical pixels.
    pub const ONE: ScaleFactor = ScaleFactor(1.0);

    /// A scale factor; fails unless `factor` is finite and in `(0, 64]`.
    pub fn new(factor: f64) -> Result<Self, ScaleError> {
        if factor.is_finite() && factor > 0.0 && factor <= 64.0 {
            Ok(ScaleFactor(factor))
        } else {
            Err(ScaleError(format!(
                "scale factor {factor} is not usable: it must be a finite number above 0 and at most 64"
            )))
        }
    }

    /// The factor as a number.
    pub fn get(self) -> f64 {
        self.0
    }

    /// Derive a window's scale by comparing its size as reported by accessibility
    /// (logical) with its size as the display server reports it (physical).
    pub fn from_sizes(logical: Size<Logical>, physical: Size<Physical>) -> Result<Self, ScaleError> {
        if logical.w == 0 {
            return Err(ScaleError("cannot derive a scale factor from a zero-width window".into()));
        }
        let raw = f64::from(physical.w) / f64::from(logical.w);
        // Toolkits scale by whole or half steps; snapping absorbs decoration rounding.
        ScaleFactor::new((raw * 4.0).round() / 4.0)
    }

    /// A logical point as physical pixels (rounded to nearest).
    pub fn to_physical(self, p: Point<Logical>) -> Point<Physical> {
        Point::new(scale_i32(p.x, self.0), scale_i32(p.y, self.0))
    }

    /// A logical rectangle as the physical pixels that cover it (rounded outward).
    pub fn rect_to_physical(self, r: Rect<Logical>) -> Rect<Physical> {
        scale_rect(r, self.0)
    }

    /// The logical point whose area holds the physical pixel `p` (rounded down: at scale 2,
    /// pixels 0 and 1 both lie in logical point 0; rounding to nearest would put pixel 1 in
    /// point 1, outside a one-point element).
    pub fn to_logical(self, p: Point<Physical>) -> Point<Logical> {
        let down = |v: i32| (f64::from(v) / self.0).floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
        Point::new(down(p.x), down(p.y))
    }

    /// A physical rectangle as logical points (rounded outward).
    pub fn rect_to_logical(self, r: Rect<Physical>) -> Rect<Logical> {
        scale_rect(r, 1.0 / self.0)
    }
}

impl TryFrom<f64> for ScaleFactor {
    type Error = ScaleError;
    fn try_from(v: f64) -> Result<Self, ScaleError> {
        ScaleFactor::new(v)
    }
}

impl From<ScaleFactor> for f64 {
    fn from(s: ScaleFactor) -> f64 {
        s.0
    }
}

fn scale_i32(v: i32, k: f64) -> i32 {
    (f64::from(v) * k).round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

fn scale_rect<A: CoordSpace, B: CoordSpace>(r: Rect<A>, k: f64) -> Rect<B> {
    let x0 = (f64::from(r.x) * k).floor();
    let y0 = (f64::from(r.y) * k).floor();
    let x1 = (r.right() as f64 * k).ceil();
    let y1 = (r.bottom() as f64 * k).ceil();
    let lim = |v: f64| v.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i64;
    let out: Rect<B> = Rect::from_edges(lim(x0), lim(y0), lim(x1).max(lim(x0)), lim(y1).max(lim(y0)));
    out
}

impl<S: CoordSpace> fmt::Debug for Point<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}) {}", self.x, self.y, S::NAME)
    }
}

impl<S: CoordSpace> fmt::Debug for Size<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{} {}", self.w, self.h, S::NAME)
    }
}

impl<S: CoordSpace> fmt::Debug for Rect<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}, {}, {}] {}", self.x, self.y, self.w, self.h, S::NAME)
    }
}

impl<S: CoordSpace> fmt::Display for Rect<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{} at ({}, {})", self.w, self.h, self.x, self.y)
    }
}

impl<S: CoordSpace> Serialize for Rect<S> {
    fn serialize<Se: serde::Serializer>(&self, s: Se) -> Result<Se::Ok, Se::Error> {
        (self.x, self.y, self.w, self.h).serialize(s)
    }
}

// The schema of what `Serialize` writes: `[x, y, w, h]`, the same for every space.
#[cfg(feature = "schemars")]
impl<S: CoordSpace> schemars::JsonSchema for Rect<S> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rect".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "[x, y, width, height]",
            "type": "array",
            // Not the tuple form (`prefixItems` + `items: false`): a draft-07 validator
            // (the MCP TypeScript SDK's) ignores `prefixItems` and then refuses every item.
            // Four integers validate alike in every draft.
            "items": {"type": "integer"},
            "minItems": 4,
            "maxItems": 4
        })
    }
}

impl<'de, S: CoordSpace> Deserialize<'de> for Rect<S> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (x, y, w, h) = <(i32, i32, u32, u32)>::deserialize(d)?;
        Ok(Rect::new(x, y, w, h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_two_doubles_and_halves() {
        let s = ScaleFactor::new(2.0).unwrap();
        let r: Rect<Logical> = Rect::new(10, 20, 30, 41);
        let p = s.rect_to_physical(r);
        assert_eq!((p.x, p.y, p.w, p.h), (20, 40, 60, 82));
        assert_eq!(s.rect_to_logical(p), r);
        assert_eq!(s.to_physical(r.center()), Point::new(50, 80));
        assert_eq!(s.to_logical(Point::new(1, 1)), Point::new(0, 0));
        assert_eq!(s.to_logical(Point::new(-3, 5)), Point::new(-2, 2));
    }

    #[test]
    fn fractional_scale_rounds_outward() {
        let s = ScaleFactor::new(1.5).unwrap();
        let p = s.rect_to_physical(Rect::<Logical>::new(1, 1, 1, 1));
        assert_eq!((p.x, p.y, p.w, p.h), (1, 1, 2, 2));
    }

    #[test]
    fn bad_scale_is_an_error() {
        for v in [0.0, -1.0, f64::NAN, f64::INFINITY, 65.0] {
            assert!(ScaleFactor::new(v).is_err(), "{v}");
        }
        assert!(serde_json::from_str::<ScaleFactor>("0").is_err());
    }

    #[test]
    fn scale_from_window_sizes() {
        let s = ScaleFactor::from_sizes(Size::new(400, 300), Size::new(800, 600)).unwrap();
        assert_eq!(s.get(), 2.0);
        assert!(ScaleFactor::from_sizes(Size::new(0, 1), Size::new(1, 1)).is_err());
    }

    #[test]
    fn hidden_widget_extremes_do_not_overflow() {
        let r: Rect<Logical> = Rect::new(i32::MIN, i32::MIN, 1, 1);
        let _ = r.center();
        let _ = ScaleFactor::new(64.0).unwrap().rect_to_physical(r);
        assert!(r.intersection(&Rect::new(0, 0, 100, 100)).is_none());
    }

    #[test]
    fn rect_ops() {
        let a: Rect<Physical> = Rect::new(0, 0, 10, 10);
        let b = Rect::new(5, 5, 10, 10);
        assert_eq!(a.intersection(&b), Some(Rect::new(5, 5, 5, 5)));
        assert_eq!(a.union(&b), Rect::new(0, 0, 15, 15));
        assert!(a.contains(Point::new(9, 9)));
        assert!(!a.contains(Point::new(10, 9)));
        assert_eq!(a.max_edge_delta(&b), 5);
        assert!(a.contains_rect(&Rect::new(2, 2, 8, 8)) && !a.contains_rect(&b));
        assert_eq!(serde_json::to_string(&a).unwrap(), "[0,0,10,10]");
    }
}
