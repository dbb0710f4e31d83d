//! The ReAct loop, the belief state and the executive function that asks when unsure.
//!
//! Not built yet. The only crate that builds prompts.
