//! One core's tick broadcast to the others by inter-core interrupt
//! (`kernel.tick_source = "broadcast"`, docs/system-format.md, Cores).
//!
//! Some SMP kernels run one hardware tick: FreeRTOS SMP takes SysTick on core 0 only
//! and signals the other cores from its tick handler. Each other core then runs its
//! tick work (time slicing, the releases it notices) in the handler of that inter-core
//! interrupt, later than the tick core's tick by however long the tick core took to
//! send it. The default, `"per-core"`, is every core's own timer (today's model).
//!
//! How the two sides are built from the file lives here, so that the analysis and the
//! simulator read one picture: on the tick core every tick also pays one send per other
//! core (`kernel.costs.ipi_send`); on every other core the tick is the inter-core
//! interrupt's handler (`L + kernel.costs.ipi`) followed by the core's own tick work, so
//! its cost is the tick's plus `ipi`. The relayed tick's delay after the nominal tick
//! instant ([`TickRelay`]) depends on the tick core's load and is found by the analysis
//! (`crate::rta::tick_relay`); the simulator raises the relayed tick when the tick
//! core's tick handler ends.

use super::context::Ctx;
use super::model::{Kernel, KernelCosts, System};
use super::raw::RawFile;
use super::SystemError;
use latscope_core::Picos;
use serde::{Deserialize, Serialize};

/// Where each core's tick comes from (`kernel.tick_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TickSource {
    /// Every core has its own tick timer (the default).
    #[default]
    PerCore,
    /// Core `kernel.tick_core` takes the tick and signals every other core with an
    /// inter-core interrupt from its tick handler.
    Broadcast,
}

impl TickSource {
    pub fn name(self) -> &'static str {
        match self {
            TickSource::PerCore => "per-core",
            TickSource::Broadcast => "broadcast",
        }
    }
    pub fn is_per_core(&self) -> bool {
        *self == TickSource::PerCore
    }
}

/// How late a relayed tick runs on a core that receives the broadcast, after the nominal
/// tick instant: at most `delay` (the tick core's worst tick-handler response, its end
/// being where the inter-core interrupt is raised), and `spread` is how much that delay
/// varies from tick to tick (`delay` minus the shortest tick handler). Zero on the tick
/// core, with per-core ticks, and in a file: only the analysis' per-core views set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TickRelay {
    pub delay: Picos,
    pub spread: Picos,
}

impl TickRelay {
    pub fn is_zero(&self) -> bool {
        *self == TickRelay::default()
    }
}

impl Kernel {
    /// Whether the tick is broadcast from one core to the others on a multicore part.
    pub fn broadcasts_tick(&self, cores: u32) -> bool {
        self.tick_source == TickSource::Broadcast && cores > 1
    }

    /// Adds `extra` to every tick's cost (the part every tick pays whatever it releases).
    fn add_to_tick(&mut self, extra: Picos) {
        match &mut self.costs {
            KernelCosts::Tick(c) => c.tick_base += extra,
            KernelCosts::Irqpath(c) => c.tick += extra,
            // Refused when the file is read (`check`).
            KernelCosts::Listscan(_) => {}
        }
    }
}

impl System {
    /// Turns `view` (core `core`'s one-core view of `self`) into what that core runs
    /// with a broadcast tick: the tick core's tick also sends `cores - 1` inter-core
    /// interrupts (`ipi_send` each); another core's tick is the inter-core interrupt's
    /// handler (`ipi`) plus its own tick work. The view is left with per-core ticks (it
    /// is one core).
    pub(super) fn apply_tick_broadcast(&self, core: u32, view: &mut System) {
        if !self.kernel.broadcasts_tick(self.platform.cores) {
            return;
        }
        let k = &mut view.kernel;
        k.tick_source = TickSource::PerCore;
        k.tick_core = 0;
        if core == self.kernel.tick_core {
            let others = i64::from(self.platform.cores - 1);
            k.add_to_tick(Picos(self.kernel.ipi_send.0.saturating_mul(others)));
        } else {
            k.add_to_tick(self.kernel.ipi);
        }
    }
}

/// Reads `kernel.tick_source`, `kernel.tick_core` and `kernel.costs.ipi_send` into
/// `kernel`, and refuses what the broadcast model does not cover: a list-scan kernel
/// (its tick only sets a flag for a thread-mode scheduler), tickless sleep states (a
/// sleeping core's relayed tick) and unpinned tasks (the global simulator).
pub(super) fn build(
    ctx: &Ctx,
    raw: &RawFile,
    kernel: &mut Kernel,
    cores: u32,
    hz: Option<u64>,
) -> Result<(), SystemError> {
    let k = raw.kernel.get_ref();
    kernel.tick_source = k
        .tick_source
        .as_ref()
        .map_or_else(Default::default, |s| *s.get_ref());
    if let Some(c) = &k.tick_core {
        let id = *c.get_ref();
        if id < 0 || id >= i64::from(cores) {
            return Err(ctx.err(
                Some(c.span()),
                "kernel",
                Some("tick_core"),
                format!(
                    "core {id} does not exist: platform.cores is {cores}, so cores are \
                     numbered 0 ..= {}",
                    cores.saturating_sub(1)
                ),
            ));
        }
        kernel.tick_core = id as u32;
    }
    if let Some(c) = &k.costs {
        kernel.ipi_send = ctx.opt_dur(&c.get_ref().ipi_send, "kernel.costs", "ipi_send", hz)?;
    }
    if kernel.tick_source != TickSource::Broadcast {
        return Ok(());
    }
    let span = k.tick_source.as_ref().map(|s| s.span());
    let refuse = |what: &str| {
        Err(ctx.err(
            span.clone(),
            "kernel",
            Some("tick_source"),
            format!("a broadcast tick with {what} is not modelled; use tick_source = \"per-core\""),
        ))
    };
    if matches!(kernel.costs, KernelCosts::Listscan(_)) {
        return refuse("the list-scan kernel (model = \"listscan\")");
    }
    if !kernel.sleep_states.is_empty() {
        return refuse("tickless sleep states ([[kernel.sleep_state]])");
    }
    let any = raw.task.iter().any(|t| {
        matches!(
            t.get_ref().core.as_ref().map(|c| c.get_ref()),
            Some(super::raw::RawTaskCore::Word(_))
        )
    });
    if any {
        return refuse("unpinned tasks (core = \"any\")");
    }
    Ok(())
}
