//! The task-timing result (`latscope trace FILE --tasks --json OUT`); its JSON Schema is
//! docs/tasks.schema.json, generated from these types.

use latscope_core::summary::ResultSummary;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

latscope_core::words!(fn kind_word = ["tasks"]);
latscope_core::words!(fn isr_kind_word = ["isr", "tick"]);

/// The whole document. Times (`*_at_ns`, `release_ns`, `at_ns`, lost windows) are in ns
/// from the recording's start; durations in ns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskTimingResult {
    #[serde(deserialize_with = "kind_word")]
    #[schemars(extend("const" = "tasks"))]
    pub kind: latscope_core::words::Word,
    pub schema_version: u32,
    pub recording: RecordingInfo,
    /// One entry per task (actor kind `task`), in the recording's actor order.
    pub tasks: Vec<TaskTiming>,
    /// One entry per interrupt handler and for the tick.
    pub isrs: Vec<IsrTiming>,
    pub lost_events: LostEvents,
    /// The idle task's share of the recording (percent of recording length × CPUs), when
    /// the recording names one.
    pub idle_percent: Option<f64>,
}

/// Where the figures come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordingInfo {
    pub source: String,
    /// perf, tracerecorder or systemview.
    pub format: String,
    /// Frequency of the recorder's timestamp clock.
    pub clock_hz: Option<u64>,
    /// One tick of that clock: every figure is uncertain by about this much.
    pub resolution_ns: Option<f64>,
    pub start_ns: f64,
    pub end_ns: f64,
    pub length_ns: f64,
    pub cpus: u16,
    pub events: u64,
    /// Handler exits without an enter (lost events or a recording started inside one).
    pub unmatched_isr_exits: u64,
}

/// One task's timing over its complete jobs (a job: the `Ready` that released it while
/// blocked → the `Block` that ended it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskTiming {
    pub name: String,
    /// As the recording gives it (RTOS: larger = more urgent; Linux: the kernel's prio,
    /// smaller = more urgent).
    pub priority: Option<i64>,
    /// The recording's identifier (TCB address, pid).
    pub id: u64,
    /// Complete jobs: those the figures below summarise.
    pub jobs: u64,
    /// Jobs cut off by the recording's start or end (not counted in `jobs`).
    pub cut_off: u64,
    /// Releases seen (every `Ready` that started a job, cut-off jobs at the end included).
    pub releases: u64,
    /// Complete jobs whose window (release → block) touches a lost-event window on a CPU
    /// the job was on (or a window of every CPU, or an inferred hole in which this task
    /// ran unseen): their figures may be wrong.
    pub suspect: u64,
    /// Release → first switch to the task (Linux: wake-up → switch-in).
    pub start_latency: ResultSummary,
    /// Release → block.
    pub response: ResultSummary,
    /// Time the task ran during the job, handlers on its CPU excluded.
    pub execution: ResultSummary,
    /// Times the task was switched out while still ready during a job.
    pub preemptions: CountStats,
    /// Intervals between consecutive releases (every release that started a job).
    pub inter_arrival: ResultSummary,
    /// Time the task ran in the whole recording (jobs cut off included).
    pub run_ns: f64,
    /// `run_ns` / recording length, in percent.
    pub cpu_percent: f64,
    /// The jobs with the largest response times, largest first.
    pub worst: Vec<JobInstance>,
}

/// Totals of a per-job count.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CountStats {
    pub total: u64,
    pub max: u64,
    /// Release time of the first job with the largest count (null without jobs).
    pub max_at_ns: Option<f64>,
}

/// One job, with where it happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobInstance {
    /// Index of the job among the task's complete jobs (0-based, release order).
    pub job: u64,
    pub release_ns: f64,
    pub start_latency_ns: Option<f64>,
    pub response_ns: f64,
    pub execution_ns: f64,
    pub preemptions: u64,
    /// Its window touches a lost-event window on a CPU it was on: the figures may be
    /// wrong.
    pub suspect: bool,
}

/// One interrupt handler (or the tick): its runs, enter → exit minus the handlers
/// nested in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IsrTiming {
    pub name: String,
    /// `isr` or `tick`.
    #[serde(deserialize_with = "isr_kind_word")]
    pub kind: latscope_core::words::Word,
    pub priority: Option<i64>,
    pub id: u64,
    /// Complete runs.
    pub count: u64,
    /// Runs that touch a lost-event window of their CPU (or of every CPU).
    pub suspect: u64,
    pub duration: ResultSummary,
    /// Intervals between consecutive enters.
    pub inter_arrival: ResultSummary,
    /// Tasks made ready inside its runs, in total.
    pub released: u64,
    /// The jobs its runs started, per task (a task readied inside it while blocked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub started_jobs: Vec<StartedJobs>,
    pub run_ns: f64,
    pub cpu_percent: f64,
    /// The longest runs, longest first.
    pub worst: Vec<IsrInstance>,
    /// Tick only: the duration by the number of tasks it released (the samples `fit
    /// --target tick` fits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_released: Vec<ReleasedRow>,
}

/// Jobs of one task that a handler's runs started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StartedJobs {
    pub task: String,
    pub jobs: u64,
}

/// One handler run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IsrInstance {
    /// Its enter.
    pub at_ns: f64,
    pub duration_ns: f64,
    pub released: u64,
    pub suspect: bool,
}

/// The tick's durations for one number of tasks released.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReleasedRow {
    pub released: u64,
    pub count: u64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub max_at_ns: f64,
}

/// Events the recorder lost: never silent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LostEvents {
    /// Events lost in total (the recorders' own counters; a window whose count is unknown
    /// adds 0).
    pub count: u64,
    /// How many of the windows are holes the recorder did not report, inferred from
    /// events that contradict each other (their counts are unknown).
    #[serde(default)]
    pub inferred: u64,
    pub windows: Vec<LostWindow>,
}

/// `count` events lost between `from_ns` and `to_ns` (on `cpu`, when it says).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LostWindow {
    /// Events lost, as the recorder counted them; 0 when it did not say how many, and
    /// always 0 for an inferred hole (`inferred`: the number is unknown).
    pub count: u64,
    pub from_ns: f64,
    pub to_ns: f64,
    /// The CPU whose events were lost; null: every CPU (or the recorder does not say).
    #[serde(default)]
    pub cpu: Option<u16>,
    /// True for a hole the recorder did not report, found because its events contradict
    /// each other (perf: a CPU's event ran in a task its last switch did not put there).
    #[serde(default)]
    pub inferred: bool,
    /// For an inferred hole: the actor the recording shows on `cpu` right after it, which
    /// ran there unseen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

impl TaskTimingResult {
    /// Reads a result back.
    pub fn from_json(text: &str) -> Result<TaskTimingResult, serde_json::Error> {
        serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
    }

    /// A task by name.
    pub fn task(&self, name: &str) -> Option<&TaskTiming> {
        self.tasks.iter().find(|t| t.name == name)
    }

    /// The tick's entry, if the recording has one.
    pub fn tick(&self) -> Option<&IsrTiming> {
        self.isrs.iter().find(|i| i.kind == "tick")
    }
}

/// The JSON Schema of [`TaskTimingResult`] (docs/tasks.schema.json is this text).
pub fn schema_json() -> String {
    let s = schemars::schema_for!(TaskTimingResult);
    serde_json::to_string_pretty(&s).unwrap_or_default() + "\n"
}
