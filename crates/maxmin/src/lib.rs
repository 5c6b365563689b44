//! Weighted max-min fair sharing: the bandwidth each flow gets when flows share links.
//!
//! Pure math, no time. A [`System`] holds *constraints* (links: a capacity, shared as a
//! sum or, for a fat pipe, per flow) and *variables* (flows: a weight, an optional upper
//! bound, and a coefficient on each constraint they cross). [`System::solve`] finds the
//! weighted max-min allocation:
//!
//! * every variable `i` gets `x_i = min(b_i, t_i / w_i)` where `t_i` is the level at
//!   which the first of its constraints saturates under progressive filling — raising a
//!   common level `t` for all unfrozen variables, each at rate `t / w_i`, freezing a
//!   variable when one of its constraints is full or it reaches its bound;
//! * a shared constraint `c` is full when `Σ a_ic · x_i = C_c`; a fat-pipe one when
//!   `max a_ic · x_i = C_c`.
//!
//! So a smaller weight means a larger share. Only the parts of the system touched since
//! the last solve (their connected components) are solved again. `reference` is a slow,
//! independent implementation used to test the fast one. Equations: `docs/models.md`.

mod events;
mod reference;
mod solve;
mod system;

pub use reference::solve_reference;
pub use system::{CnstId, Policy, System, VarId};
