//! The seam: a narrow trait for pointer and keyboard input, in physical pixels only.

use deft_types::{KeyChord, MouseButton, Physical, Point};

use crate::{Chord, InputError};

/// What to do with a mouse button.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ButtonAction {
    /// Press and hold.
    Press,
    /// Release a held button.
    Release,
    /// Press and release `count` times (2 is a double click). `count` must be at least 1.
    Click {
        /// How many clicks.
        count: u8,
    },
}

/// How a drag moves between its ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DragConfig {
    /// Intermediate pointer positions between press and release. Toolkits start a drag
    /// only after the pointer moved past a threshold while pressed, so a drag that jumps
    /// straight to its end is often seen as a click.
    pub steps: u32,
}

impl Default for DragConfig {
    fn default() -> Self {
        DragConfig { steps: 10 }
    }
}

/// Mouse and keyboard input.
///
/// Points are physical pixels of the whole screen (the X root window, the Windows virtual
/// screen, macOS global display coordinates times the display's scale). A point from
/// accessibility is logical and must go through the window's scale factor first (see
/// [`crate::mapping`]); the type system does not let it through unconverted.
///
/// Every call returns once the platform has taken the events; it does not wait for the
/// application to react (that is verification's job, which watches the application).
pub trait Input {
    /// Move the pointer to `to`.
    fn move_to(&mut self, to: Point<Physical>) -> Result<(), InputError>;

    /// Where the pointer is now, when the backend can tell (`None` when it cannot).
    fn position(&mut self) -> Result<Option<Point<Physical>>, InputError> {
        Ok(None)
    }

    /// Press, release or click `button` where the pointer is.
    fn button(&mut self, button: MouseButton, action: ButtonAction) -> Result<(), InputError>;

    /// Scroll by wheel steps where the pointer is: `dx` positive scrolls right, `dy`
    /// positive scrolls down.
    fn scroll(&mut self, dx: i32, dy: i32) -> Result<(), InputError>;

    /// Type `text` (any Unicode) into whatever has the keyboard focus.
    fn text(&mut self, text: &str) -> Result<(), InputError>;

    /// Whether [`Input::text`] can type all of `text`, asked before the first key goes: a
    /// backend that can type only some characters (a keyboard with one layout) refuses the
    /// whole text up front, so a caller never sends half of it. Every text by default.
    fn can_type(&self, text: &str) -> Result<(), InputError> {
        let _ = text;
        Ok(())
    }

    /// Press a chord: modifiers in order, the key, then release all in reverse. Nothing is
    /// left held, even when sending fails part-way.
    fn chord(&mut self, chord: &Chord) -> Result<(), InputError>;

    /// Paste `text` at `at` with no key event: on X11 the text is offered as the primary
    /// selection and a middle click at `at` pastes it, as a person pastes into a field whose
    /// page swallows keys. Returns whether an application asked for the text (`false`: the
    /// click pasted nothing). The primary selection is left empty afterwards; the clipboard
    /// is not touched. A backend with no such way refuses (the default).
    fn paste_at(&mut self, at: Point<Physical>, text: &str) -> Result<bool, InputError> {
        let _ = (at, text);
        Err(InputError::Invalid("this input backend cannot paste text without key events".into()))
    }

    /// Move to `at` and click `button` `count` times.
    fn click_at(&mut self, at: Point<Physical>, button: MouseButton, count: u8) -> Result<(), InputError> {
        self.move_to(at)?;
        self.button(button, ButtonAction::Click { count })
    }

    /// Move to `at` and scroll there.
    fn scroll_at(&mut self, at: Point<Physical>, dx: i32, dy: i32) -> Result<(), InputError> {
        self.move_to(at)?;
        self.scroll(dx, dy)
    }

    /// Press `button` at `from`, move to `to` in steps, release. The button is released
    /// even when a move fails.
    fn drag(
        &mut self,
        from: Point<Physical>,
        to: Point<Physical>,
        button: MouseButton,
        config: DragConfig,
    ) -> Result<(), InputError> {
        self.move_to(from)?;
        self.button(button, ButtonAction::Press)?;
        let moved = drag_path(from, to, config.steps).try_for_each(|p| self.move_to(p));
        let released = self.button(button, ButtonAction::Release);
        moved.and(released)
    }

    /// Press a chord given by name (as carried by `deft_types::Action::Key`).
    fn key_chord(&mut self, chord: &KeyChord) -> Result<(), InputError> {
        self.chord(&Chord::from_key_chord(chord)?)
    }
}

/// The points a drag passes through after `from`: `steps` evenly spaced ones, then `to`.
pub fn drag_path(from: Point<Physical>, to: Point<Physical>, steps: u32) -> impl Iterator<Item = Point<Physical>> {
    let n = steps + 1;
    (1..=n).map(move |i| {
        let t = f64::from(i) / f64::from(n);
        let lerp = |a: i32, b: i32| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as i32;
        Point::new(lerp(from.x, to.x), lerp(from.y, to.y))
    })
}

/// Refuse a point outside a `width` x `height` screen: the display server would silently
/// clamp it and the click would land on whatever is at the edge.
pub(crate) fn check_on_screen(p: Point<Physical>, (width, height): (u32, u32)) -> Result<(), InputError> {
    let inside = p.x >= 0 && p.y >= 0 && (p.x as u32) < width && (p.y as u32) < height;
    if inside {
        Ok(())
    } else {
        Err(InputError::Invalid(format!(
            "the point {p:?} is outside the {width}x{height} screen; was a logical point used without \
             its window's scale factor?"
        )))
    }
}

pub(crate) fn check_action(action: ButtonAction) -> Result<(), InputError> {
    match action {
        ButtonAction::Click { count: 0 } => Err(InputError::Invalid("a click needs a count of at least 1".into())),
        _ => Ok(()),
    }
}

/// Forwards every method of [`Input`], the provided ones too: a forwarding impl that left
/// one to its default would silently refuse (`paste_at`) or not know (`position`) wherever
/// the input is held behind a box or a reference, however the backend implements it.
macro_rules! forward_input {
    ($($ty:ty),+) => {$(
        impl<T: Input + ?Sized> Input for $ty {
            fn move_to(&mut self, to: Point<Physical>) -> Result<(), InputError> {
                (**self).move_to(to)
            }
            fn position(&mut self) -> Result<Option<Point<Physical>>, InputError> {
                (**self).position()
            }
            fn button(&mut self, button: MouseButton, action: ButtonAction) -> Result<(), InputError> {
                (**self).button(button, action)
            }
            fn scroll(&mut self, dx: i32, dy: i32) -> Result<(), InputError> {
                (**self).scroll(dx, dy)
            }
            fn can_type(&self, text: &str) -> Result<(), InputError> {
                (**self).can_type(text)
            }
            fn text(&mut self, text: &str) -> Result<(), InputError> {
                (**self).text(text)
            }
            fn chord(&mut self, chord: &Chord) -> Result<(), InputError> {
                (**self).chord(chord)
            }
            fn paste_at(&mut self, at: Point<Physical>, text: &str) -> Result<bool, InputError> {
                (**self).paste_at(at, text)
            }
            fn click_at(&mut self, at: Point<Physical>, button: MouseButton, count: u8) -> Result<(), InputError> {
                (**self).click_at(at, button, count)
            }
            fn scroll_at(&mut self, at: Point<Physical>, dx: i32, dy: i32) -> Result<(), InputError> {
                (**self).scroll_at(at, dx, dy)
            }
            fn drag(
                &mut self,
                from: Point<Physical>,
                to: Point<Physical>,
                button: MouseButton,
                config: DragConfig,
            ) -> Result<(), InputError> {
                (**self).drag(from, to, button, config)
            }
            fn key_chord(&mut self, chord: &KeyChord) -> Result<(), InputError> {
                (**self).key_chord(chord)
            }
        }
    )+};
}

forward_input!(&mut T, Box<T>);

#[cfg(test)]
mod tests {
    use super::*;

    /// A backend that knows where its pointer is and can paste.
    struct Knows;

    impl Input for Knows {
        fn move_to(&mut self, _: Point<Physical>) -> Result<(), InputError> {
            Ok(())
        }
        fn position(&mut self) -> Result<Option<Point<Physical>>, InputError> {
            Ok(Some(Point::new(7, 9)))
        }
        fn button(&mut self, _: MouseButton, _: ButtonAction) -> Result<(), InputError> {
            Ok(())
        }
        fn scroll(&mut self, _: i32, _: i32) -> Result<(), InputError> {
            Ok(())
        }
        fn text(&mut self, _: &str) -> Result<(), InputError> {
            Ok(())
        }
        fn chord(&mut self, _: &Chord) -> Result<(), InputError> {
            Ok(())
        }
        fn paste_at(&mut self, _: Point<Physical>, _: &str) -> Result<bool, InputError> {
            Ok(true)
        }
    }

    #[test]
    fn a_boxed_or_borrowed_input_keeps_what_its_backend_can_do() {
        // Before, the forwarding impls left these to their defaults: "cannot paste" and
        // "position unknown" wherever the input was held behind a box.
        let mut boxed: Box<dyn Input> = Box::new(Knows);
        assert_eq!(boxed.position().unwrap(), Some(Point::new(7, 9)));
        assert!(boxed.paste_at(Point::new(1, 1), "x").unwrap());
        let mut plain = Knows;
        let mut borrowed: &mut dyn Input = &mut plain;
        let by_ref = &mut borrowed;
        assert_eq!(Input::position(by_ref).unwrap(), Some(Point::new(7, 9)));
        assert!(Input::paste_at(by_ref, Point::new(1, 1), "x").unwrap());
    }

    #[test]
    fn drag_path_ends_at_the_target_and_moves_monotonically() {
        let path: Vec<_> = drag_path(Point::new(0, 0), Point::new(100, -50), 4).collect();
        assert_eq!(path.len(), 5);
        assert_eq!(path.last(), Some(&Point::new(100, -50)));
        assert_eq!(path[0], Point::new(20, -10));
        assert!(path.windows(2).all(|w| w[0].x < w[1].x && w[0].y > w[1].y));
        assert_eq!(drag_path(Point::new(3, 3), Point::new(9, 9), 0).collect::<Vec<_>>(), [Point::new(9, 9)]);
    }
}
