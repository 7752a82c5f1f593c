//! Indexing's progress as plain lines on stderr when it is not a terminal (a log, CI, a pipe), where the
//! terminal's bars draw nothing: each stage as it starts, then a line at least every [`LINE_EVERY`] while
//! it runs, so a long stage never looks like a hang. A thread of its own writes the lines: a stage that
//! reports nothing for minutes (structuring one huge file) still gets them.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest a running stage goes without a line; `QUIRE_PROGRESS_SECONDS` sets another (tests).
const LINE_EVERY: Duration = Duration::from_secs(10);

/// The stage running, as its lines say it.
struct Stage {
    /// `parsing`, `structuring`, `embedding`, `building`.
    name: &'static str,
    /// What it counts (`files`, `texts`), if it counts.
    unit: Option<&'static str>,
    done: usize,
    total: usize,
    current: Option<String>,
    started: Instant,
    last_line: Instant,
}

impl Stage {
    fn line(&self) -> String {
        let seconds = self.started.elapsed().as_secs_f64();
        let mut line = match self.unit {
            Some(unit) => {
                let rate = self.done as f64 / seconds.max(1e-3);
                format!("{}: {}/{} {unit} in {seconds:.0} s ({rate:.1}/s)", self.name, self.done, self.total)
            }
            None => format!("{}: still working after {seconds:.0} s", self.name),
        };
        if let Some(current) = &self.current {
            line.push_str(&format!(", at {current}"));
        }
        line
    }
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Wakes the writer to end.
    wake: Condvar,
}

#[derive(Default)]
struct State {
    stage: Option<Stage>,
    ended: bool,
}

/// The lines' writer: a thread, ended when this is dropped.
pub struct LogLines {
    shared: Arc<Shared>,
    writer: Option<JoinHandle<()>>,
}

impl LogLines {
    pub fn start() -> Self {
        let every = std::env::var("QUIRE_PROGRESS_SECONDS")
            .ok()
            .and_then(|seconds| seconds.parse::<f64>().ok())
            .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
            .map_or(LINE_EVERY, Duration::from_secs_f64);
        let shared = Arc::new(Shared::default());
        let writer = {
            let shared = shared.clone();
            std::thread::spawn(move || write_lines(&shared, every))
        };
        LogLines { shared, writer: Some(writer) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A stage starts: its line now. `total` counts `unit`s where it counts.
    pub fn begin(&self, name: &'static str, unit: Option<&'static str>, total: usize) {
        match unit {
            Some(unit) => eprintln!("{name}: {total} {unit}"),
            None => eprintln!("{name}…"),
        }
        let now = Instant::now();
        self.state().stage = Some(Stage { name, unit, done: 0, total, current: None, started: now, last_line: now });
    }

    /// Where the running stage is: `done` of its total, at `current`.
    pub fn at(&self, done: usize, current: Option<&str>) {
        if let Some(stage) = self.state().stage.as_mut() {
            stage.done = done;
            stage.current = current.map(str::to_string);
        }
    }

    /// `more` done in the running stage.
    pub fn advance(&self, more: usize) {
        if let Some(stage) = self.state().stage.as_mut() {
            stage.done += more;
        }
    }

    /// The name of the running stage, if any.
    pub fn running(&self) -> Option<&'static str> {
        self.state().stage.as_ref().map(|stage| stage.name)
    }
}

impl Drop for LogLines {
    fn drop(&mut self) {
        self.state().ended = true;
        self.shared.wake.notify_all();
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// Until the end: a line whenever the running stage has gone `every` without one.
fn write_lines(shared: &Shared, every: Duration) {
    let tick = every.min(Duration::from_secs(1)) / 2;
    let mut state = shared.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    while !state.ended {
        if let Some(running) = state.stage.as_mut().filter(|running| running.last_line.elapsed() >= every) {
            eprintln!("{}", running.line());
            running.last_line = Instant::now();
        }
        state = shared.wake.wait_timeout(state, tick).unwrap_or_else(|poisoned| poisoned.into_inner()).0;
    }
}
