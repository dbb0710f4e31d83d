//! Data-driven checks of the relevance rules: two outlines in, the `observed` line out.

use deft_types::{ElementId, Rect, State};

use crate::relevance::{EffectKind, Judgement, NoiseKind, Relation, RelevanceConfig};
use crate::test_support::snap;

fn config(target: Option<&str>) -> RelevanceConfig {
    RelevanceConfig { target: target.map(|t| ElementId(t.into())), ..RelevanceConfig::default() }
}

fn judged(before: &str, after: &str, config: &RelevanceConfig) -> Judgement {
    Judgement::between(&snap(before), &snap(after), config)
}

#[track_caller]
fn check(before: &str, after: &str, target: Option<&str>, expected: &str) {
    check_with(before, after, &config(target), expected);
}

#[track_caller]
fn check_with(before: &str, after: &str, config: &RelevanceConfig, expected: &str) {
    let j = judged(before, after, config);
    assert_eq!(j.to_string(), expected, "{j:#?}");
}

const FORM: &str = r#"
w frame "Main"
  name text "Name" text=""
  sub check_box "Subscribe" enabled
  ok push_button "Submit" enabled @100,200,80,24
  clock label text="10:41"
window w "Main" frame active
"#;

#[test]
fn dialog_and_target_gone() {
    check(
        FORM,
        r#"
w frame "Main"
  name text "Name" text=""
  sub check_box "Subscribe" enabled
  clock label text="10:41"
window w "Main" frame
window d "Saved" dialog modal active
"#,
        Some("ok"),
        r#"dialog "Saved" appeared; "Submit" gone; window "Main" no longer active"#,
    );
}

#[test]
fn typed_text_and_checked() {
    let after = FORM
        .replace(r#"text "Name" text="""#, r#"text "Name" text="John" focused"#)
        .replace("enabled\n  ok", "enabled checked\n  ok");
    check(FORM, &after, Some("name"), r#""Name" text "" -> "John", focused; "Subscribe" checked"#);
}

#[test]
fn bounds_jitter_is_noise_a_move_is_not() {
    let jitter = FORM.replace("@100,200,80,24", "@102,199,80,24");
    check(FORM, &jitter, Some("ok"), "no change (ignored: bounds jitter)");
    let moved = FORM.replace("@100,200,80,24", "@110,200,80,24");
    check(FORM, &moved, Some("ok"), r#""Submit" moved by (+10, +0)"#);
    let cfg = RelevanceConfig { jitter_px: 0, ..config(Some("ok")) };
    check_with(FORM, &jitter, &cfg, r#""Submit" moved by (+2, -1)"#);
}

#[test]
fn clock_text_is_noise_unless_it_is_the_target() {
    let ticked = FORM.replace("10:41", "10:42");
    check(FORM, &ticked, Some("ok"), "no change (ignored: clock text)");
    check(FORM, &ticked, Some("clock"), r#"label text "10:41" -> "10:42""#);
    let cfg = RelevanceConfig { clock_text: false, ..config(Some("ok")) };
    check_with(FORM, &ticked, &cfg, r#"label text "10:41" -> "10:42""#);
    let rewritten = FORM.replace(r#"text="10:41""#, r#"text="Saved at 10:42""#);
    check(FORM, &rewritten, Some("ok"), r#"label text "10:41" -> "Saved at 10:42""#);
}

#[test]
fn progress_churn_is_noise_but_means_loading() {
    let before = "w frame \"Main\"\n  p progress_bar value=\"10\"\n  ok push_button \"Go\"";
    let after = "w frame \"Main\"\n  p progress_bar value=\"40\" busy\n  ok push_button \"Go\"";
    check(before, after, Some("ok"), "no change (ignored: progress activity)");
    assert!(judged(before, after, &config(Some("ok"))).loading);
}

#[test]
fn a_turning_spinner_is_activity_a_moved_button_is_not() {
    // GTK 4 reports a spinner's turned box: it moves by some 20 px every frame.
    let before = "w frame \"Main\"\n  s spinner \"GtkSpinner\" @255,426,16,24\n  ok push_button \"Go\" @10,10,80,30";
    let after = before.replace("@255,426,16,24", "@267,410,16,24");
    check(before, &after, Some("ok"), "no change (ignored: progress activity)");
    check(before, &after, Some("s"), r#""GtkSpinner" moved by (+12, -16)"#);
    assert!(!judged(before, &after, &config(Some("ok"))).loading, "a spinner turning forever is not loading");
}

#[test]
fn a_progress_bar_that_was_hidden_has_finished_not_loading() {
    // Qt hides its "Loading" bar when done: compared with the reading from before the
    // input, that change must not say "still loading" for as long as one waits.
    let before = "w frame \"Main\"\n  p progress_bar \"Loading\" value=\"-1\" showing busy\n  ok push_button \"Go\"";
    let after = "w frame \"Main\"\n  p progress_bar \"Loading\" value=\"-1\"\n  ok push_button \"Go\"";
    assert!(!judged(before, after, &config(Some("ok"))).loading);
    let still = "w frame \"Main\"\n  p progress_bar \"Loading\" value=\"50\" showing busy\n  ok push_button \"Go\"";
    assert!(judged(before, still, &config(Some("ok"))).loading);
}

#[test]
fn spinner_or_loading_text_appearing_is_an_effect_and_loading() {
    let before = "w frame \"Main\"\n  ok push_button \"Go\"";
    let spinner = "w frame \"Main\"\n  ok push_button \"Go\"\n  s animation";
    check(before, spinner, Some("ok"), "animation appeared");
    assert!(judged(before, spinner, &config(Some("ok"))).loading);
    let text = "w frame \"Main\"\n  ok push_button \"Go\"\n  l label \"Loading…\"";
    assert!(judged(before, text, &config(Some("ok"))).loading);
    assert!(!judged(before, before, &config(Some("ok"))).loading);
}

#[test]
fn pixels_caret_and_masks() {
    let before = "region 0,0,200,40 #1\nregion 50,10,2,16 #1\nregion 300,0,60,20 #1";
    let caret = "region 0,0,200,40 #1\nregion 50,10,2,16 #2\nregion 300,0,60,20 #1";
    check(before, caret, None, "no change (ignored: caret)");
    let clock = "region 0,0,200,40 #1\nregion 50,10,2,16 #1\nregion 300,0,60,20 #2";
    let masked = RelevanceConfig { masks: vec![Rect::new(290, 0, 100, 30)], ..config(None) };
    check_with(before, clock, &masked, "no change (ignored: masked region)");
    check(before, clock, None, "pixels changed in 60x20 at (300, 0)");
    let both = "region 0,0,200,40 #2\nregion 50,10,2,16 #1\nregion 300,0,60,20 #2";
    check(before, both, None, "pixels changed in 2 regions");
}

#[test]
fn ignored_subtrees_are_noise() {
    let before = "w frame \"Main\"\n  tray panel\n    t label \"3 new\"\n  ok push_button \"Go\"";
    let after = "w frame \"Main\"\n  tray panel\n    t label \"4 new\"\n  ok push_button \"Go\"";
    check(before, after, Some("ok"), r#""3 new" renamed "4 new""#);
    let cfg = RelevanceConfig { ignore: vec![ElementId("tray".into())], ..config(Some("ok")) };
    check_with(before, after, &cfg, "no change (ignored: ignored element)");
}

#[test]
fn subtrees_collapse_and_show_their_texts() {
    let before = "w frame \"Main\"\n  ok push_button \"Go\"";
    let after = r#"
w frame "Main"
  ok push_button "Go"
  banner panel
    icon image
    msg label "Saved successfully"
    x push_button "Dismiss"
"#;
    check(before, after, Some("ok"), r#"panel appeared with "Saved successfully", "Dismiss""#);
    check(after, before, Some("ok"), "panel gone");
    let in_tree = "w frame \"Main\"\n  ok push_button \"Go\"\n  d dialog \"Confirm\"\n    y push_button \"Yes\"";
    check(in_tree, before, Some("y"), r#"dialog "Confirm" closed"#);
    assert!(judged(in_tree, before, &config(Some("y"))).target_gone());
}

#[test]
fn effects_are_placed_and_ordered() {
    let before = r#"
w frame "Main"
  list list
    a list_item "A"
  ok push_button "Go"
  l label "Idle"
other frame "Other"
  o label "x"
"#;
    let after = r#"
w frame "Main"
  list list
    a list_item "A" selected
  ok push_button "Go" focused
  l label "Done"
other frame "Other"
  o label "y"
"#;
    let j = judged(before, after, &config(Some("list")));
    let places: Vec<_> = j.effects.iter().map(|e| e.relation).collect();
    assert_eq!(places, [Relation::InsideTarget, Relation::SameWindow, Relation::SameWindow, Relation::OtherWindow]);
    assert_eq!(j.to_string(), r#""A" selected; "Idle" renamed "Done"; "Go" focused; "x" renamed "y""#);
    let j = judged(before, after, &config(Some("ok")));
    assert_eq!(j.target_changes(), Some(&[crate::FieldChange::StateAdded(State::Focused)][..]));
    assert!(j.target_gained(State::Focused));
    assert!(matches!(j.effects[0].kind, EffectKind::Changed { .. }));
    assert_eq!(j.effects[0].relation, Relation::Target);
}

#[test]
fn windows() {
    let before = "window w \"Untitled\" frame active @0,0,800,600";
    check(
        before,
        "window w \"notes.txt\" frame active @0,0,800,600",
        None,
        r#"window "Untitled" now titled "notes.txt""#,
    );
    check(before, "window w \"Untitled\" frame active @1,2,800,600", None, "no change (ignored: bounds jitter)");
    check(
        before,
        "window w \"Untitled\" frame active @0,0,400,600",
        None,
        r#"window "Untitled" resized 800x600 -> 400x600"#,
    );
    check(before, "", None, r#"window "Untitled" closed"#);
    check("", "window a \"Error\" alert", None, r#"alert "Error" appeared"#);
    let j = judged(before, "window w \"Untitled\" frame active @1,2,800,600", &config(None));
    assert_eq!(j.noise_kinds(), [NoiseKind::BoundsJitter]);
}

#[test]
fn identical_snapshots_have_no_effect() {
    let j = judged(FORM, FORM, &config(Some("ok")));
    assert!(!j.has_effect());
    assert_eq!(j.to_string(), "no change");
}

/// The rules for what an input did: changes that explain themselves are noise.
#[test]
fn after_an_input_what_explains_itself_is_noise() {
    let cfg = RelevanceConfig { target: Some(ElementId("ok".into())), ..RelevanceConfig::after_input() };
    // Focus moving to the button and the window becoming active: incidental.
    let focused = FORM.replace("enabled @100", "enabled focused @100");
    check_with(FORM, &focused, &cfg, "no change (ignored: incidental focus or activation)");
    // A push button pressed for a moment is the press being handled, not the click's
    // effect; a toggle button's pressed is its state.
    let pressed = FORM.replace("enabled @100", "enabled pressed @100");
    assert!(!judged(FORM, &pressed, &cfg).has_effect());
    // An element that appears with nothing of it shown (a background tab's page): no one
    // sees it; the same shown is an effect.
    let hidden = FORM.replace("  clock label", "  bg document_web \"Other tab\"\n  clock label");
    assert!(!judged(FORM, &hidden, &cfg).has_effect());
    let shown = FORM.replace("  clock label", "  bg document_web \"Other tab\" showing\n  clock label");
    assert!(judged(FORM, &shown, &cfg).has_effect());
    // A container put in around what was already shown (GTK 4.8's stack pages, added above
    // their content after the first full read) shows nothing new; one around something new
    // that is shown is an effect.
    let shown_form = FORM.replace("enabled @100", "enabled showing @100");
    let wrapped = shown_form.replace("  ok push_button", "  pg panel \"Page 1\"\n    ok push_button");
    let j = judged(&shown_form, &wrapped, &cfg);
    assert!(!j.has_effect(), "{j:#?}");
    let fresh = wrapped.replace("    ok push_button", "    ok2 push_button");
    assert!(judged(&shown_form, &fresh, &cfg).has_effect());
    // Another page appearing beside the target's, outside it, even called shown: a tab
    // loading in the background (Firefox's preloaded New Tab). Inside the target's page
    // (an iframe the click loads) it is an effect.
    let page = r#"
w frame "Browser"
  tabs page_tab_list "Tabs" showing
  sp scroll_pane "" showing
    doc document_web "Shop" showing
      ok push_button "Submit" enabled showing @100,200,80,24
window w "Browser" frame active
"#;
    let cfg_page = RelevanceConfig { target: Some(ElementId("ok".into())), ..RelevanceConfig::after_input() };
    let preloaded =
        page.replace("window w", "  sp2 scroll_pane \"\" showing\n    nt document_web \"New Tab\" showing\nwindow w");
    let j = judged(page, &preloaded, &cfg_page);
    assert!(!j.has_effect(), "{j:#?}");
    assert_eq!(j.noise_kinds(), [NoiseKind::Hidden]);
    // The same while the target itself was re-created (the stale-control fault).
    let recreated = preloaded.replace("      ok push_button", "      ok2 push_button");
    assert!(!judged(page, &recreated, &cfg_page).has_effect());
    let framed = page.replace("window w", "      f document_web \"Map\" showing\nwindow w");
    assert!(judged(page, &framed, &cfg_page).has_effect());
    let toggle = FORM.replace("push_button", "toggle_button");
    assert!(judged(&toggle, &toggle.replace("enabled @100", "enabled pressed @100"), &cfg).has_effect());
    // The button destroyed and rebuilt equal, elsewhere: a re-created widget, no effect.
    let rebuilt = FORM.replace(
        r#"ok push_button "Submit" enabled @100,200,80,24"#,
        r#"ok2 push_button "Submit" enabled @100,230,80,24"#,
    );
    let j = judged(FORM, &rebuilt, &cfg);
    assert!(j.effects.is_empty(), "{j:#?}");
    assert_eq!(j.noise_kinds(), [NoiseKind::Recreated]);
    // A panel that was loading before the input finishing meanwhile: not the input's effect.
    let loading = r#"
w frame "Main"
  ok push_button "Submit" enabled
  p panel "Content"
    s label "Loading..." showing
window w "Main" frame active
"#;
    let loaded = r#"
w frame "Main"
  ok push_button "Submit" enabled
  p panel "Content"
    s label "Content ready" showing
window w "Main" frame active
"#;
    let j = judged(loading, loaded, &cfg);
    assert!(j.effects.is_empty(), "{j:#?}");
    assert_eq!(j.noise_kinds(), [NoiseKind::PreLoading]);
    assert_eq!(crate::working_zones(&snap(loading), &cfg), [ElementId("p".into())]);
    // The same changes without the rules are effects.
    assert!(judged(loading, loaded, &config(Some("ok"))).has_effect());
    assert!(judged(FORM, &focused, &config(Some("ok"))).has_effect());
}

#[test]
fn layout_settling_around_content_changed_before_the_input_is_noise() {
    // The fixture's loading panel finished just before a dropped click: the read before the
    // input already showed "Content ready", laid out a frame later. Its move, and its
    // container's, are the layout following; anything else still counts.
    let ready = r#"
w frame "Main"
  ok push_button "Submit" enabled @100,200,80,24
  p panel "Content" @300,100,200,100
    s label "Content ready" showing @300,100,60,20
    h label "Hint" showing @300,130,60,20
  far label "Status" showing @10,400,60,20
window w "Main" frame active
"#;
    let laid_out = ready
        .replace("@300,100,60,20", "@320,110,92,80")
        .replace("@300,130,60,20", "@300,200,60,20")
        .replace("@300,100,200,100", "@300,100,220,120");
    let cfg = RelevanceConfig {
        target: Some(ElementId("ok".into())),
        settling: vec![ElementId("s".into())],
        ..RelevanceConfig::after_input()
    };
    let j = judged(ready, &laid_out, &cfg);
    assert!(j.effects.is_empty(), "{j:#?}");
    assert_eq!(j.noise_kinds(), [NoiseKind::Settling]);
    assert_eq!(j.noise.len(), 3, "the label, its neighbour, its container: {j:#?}");
    // Without the app saying that content changed, the same move is an effect.
    let plain = RelevanceConfig { settling: Vec::new(), ..cfg.clone() };
    assert!(judged(ready, &laid_out, &plain).has_effect());
    // A move elsewhere, or a change of more than the place, is an effect.
    assert!(judged(ready, &ready.replace("@10,400,60,20", "@10,450,60,20"), &cfg).has_effect());
    let renamed = laid_out.replace(r#"h label "Hint""#, r#"h label "Done""#);
    assert_eq!(judged(ready, &renamed, &cfg).effects.len(), 1);
}

#[test]
fn content_that_changed_by_itself_before_the_input_is_kept_apart() {
    // A counter ticked before a click on Submit: its next tick says nothing of the click.
    let form = r#"
w frame "Main"
  ok push_button "Submit" enabled @100,200,80,24
  tick label "Uptime 12 s" showing @300,100,90,20
  far label "Status" showing @10,400,60,20
window w "Main" frame active
"#;
    let ticked = form.replace("Uptime 12 s", "Uptime 13 s");
    let cfg = RelevanceConfig {
        target: Some(ElementId("ok".into())),
        self_changing: vec![ElementId("tick".into()), ElementId("ok".into())],
        ..RelevanceConfig::after_input()
    };
    let j = judged(form, &ticked, &cfg);
    assert!(j.effects.is_empty(), "{j:#?}");
    assert_eq!(j.noise_kinds(), [NoiseKind::ChangesByItself]);
    // Not learned: the same tick is an effect (what the executor did before).
    let plain = RelevanceConfig { self_changing: Vec::new(), ..cfg.clone() };
    assert!(judged(form, &ticked, &plain).has_effect());
    // Anything else still counts: another element's text, the ticking label going away,
    // and the target's own change (the target is never its own noise).
    let status = ticked.replace(r#"far label "Status""#, r#"far label "Ordered""#);
    assert_eq!(judged(form, &status, &cfg).effects.len(), 1);
    let gone: String = form.lines().filter(|l| !l.contains("Uptime")).collect::<Vec<_>>().join("\n");
    assert!(judged(form, &gone, &cfg).has_effect());
    let renamed = form.replace(r#""Submit""#, r#""Submitted""#);
    assert!(judged(form, &renamed, &cfg).has_effect());
}

#[test]
fn a_text_node_replaced_under_content_that_changes_by_itself_is_part_of_it() {
    // Chromium replaces a section's text node when the page sets its text.
    let page = r#"
w frame "Main"
  ok push_button "Hello" enabled @100,200,80,24
  sec section "" text="Frames: 2" showing @300,100,90,20
    t2 static "Frames: 2" showing @300,100,90,20
window w "Main" frame active
"#;
    let ticked = page
        .replace(r#"text="Frames: 2""#, r#"text="Frames: 4""#)
        .replace(r#"t2 static "Frames: 2""#, r#"t4 static "Frames: 4""#);
    let cfg = RelevanceConfig {
        target: Some(ElementId("ok".into())),
        self_changing: vec![ElementId("sec".into())],
        ..RelevanceConfig::after_input()
    };
    let j = judged(page, &ticked, &cfg);
    assert!(j.effects.is_empty(), "{j:#?}");
    assert_eq!(j.noise_kinds(), [NoiseKind::ChangesByItself]);
    let plain = RelevanceConfig { self_changing: Vec::new(), ..cfg.clone() };
    assert_eq!(judged(page, &ticked, &plain).effects.len(), 3);
}
