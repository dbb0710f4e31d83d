//! A flow's failed step put to the agent: what the flow is, what was done, the step, what
//! it had to bring about and how it failed, and the one thing asked: make that step's
//! effect hold, nothing more. One wording, for every face that repairs.

/// A failed step of a flow, as the repair is told it.
#[derive(Clone, Debug, Default)]
pub struct FailedStep {
    /// The flow's name, if it has one.
    pub flow: Option<String>,
    /// The steps done before it, in words.
    pub done: Vec<String>,
    /// Its number, from 1, and how many steps the flow has.
    pub step: usize,
    /// How many steps the flow has.
    pub total: usize,
    /// The call in words (`click app=deft-fixture role=push_button name="Submit order"`).
    pub asked: String,
    /// The condition it had to bring about, when the flow says one.
    pub expect: Option<String>,
    /// How it failed, in words (the outcome's observation, the closest elements).
    pub failure: String,
}

/// The goal of a repair.
pub fn repair_goal(s: &FailedStep) -> String {
    let flow = s.flow.as_deref().map(|n| format!(" {n:?}")).unwrap_or_default();
    let mut goal = format!("Repair one step of the recorded flow{flow}. ");
    if !s.done.is_empty() {
        goal.push_str(&format!("Steps 1 to {} are done ({}); do not repeat them. ", s.done.len(), s.done.join("; ")));
    }
    goal.push_str(&format!("Step {} of {} was: {}", s.step, s.total, s.asked));
    match &s.expect {
        Some(e) => goal.push_str(&format!(", and it must bring about {e}. ")),
        None => goal.push_str(". "),
    }
    goal.push_str(&format!(
        "It failed: {} The application may have changed since the flow was recorded (a renamed button, a \
         moved field). Do only what step {} was meant to do, on the element that does it now, so that its effect \
         holds; then call done.",
        s.failure.trim_end_matches('.').to_string() + ".",
        s.step
    ));
    goal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_goal_says_what_was_done_the_step_its_expectation_and_its_failure() {
        let g = repair_goal(&FailedStep {
            flow: Some("Submit an order".into()),
            done: vec!["type \"Ada\" into Name".into()],
            step: 2,
            total: 3,
            asked: "click role=push_button name=\"Submit order\"".into(),
            expect: Some("text:\"Order 1 submitted\"".into()),
            failure: "no element matches; closest: push_button \"Place order\"".into(),
        });
        assert_eq!(
            g,
            "Repair one step of the recorded flow \"Submit an order\". Steps 1 to 1 are done (type \"Ada\" into Name); \
             do not repeat them. Step 2 of 3 was: click role=push_button name=\"Submit order\", and it must bring \
             about text:\"Order 1 submitted\". It failed: no element matches; closest: push_button \"Place order\". \
             The application may have changed since the flow was recorded (a renamed button, a moved field). Do \
             only what step 2 was meant to do, on the element that does it now, so that its effect holds; then \
             call done."
        );
    }
}
