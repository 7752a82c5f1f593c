//! A crashed engine brought back: whatever crashes, a call waiting on it or not, the session starts a new
//! full engine with the index the page shows and tells the user once; every call the crash failed awaits
//! that one restart.

use futures_util::future::FutureExt;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{IndexSession, SessionError};
use crate::app::corpora;
use crate::app::phase::Step;
use crate::web::browser;
use crate::web::client::{self, Failure};

/// A crash this soon after the last restart is not restarted again: the new engine failed as the old one
/// did, and starting it over and over would only spend the user's battery.
const RESTART_AGAIN_AFTER_MS: f64 = 60_000.0;

impl IndexSession {
    /// A new full engine with the index the page shows: the saved one if it is saved (the engine reads it),
    /// else the corpus shown.
    async fn restart_engine(self) -> Result<(), SessionError> {
        self.start_engine(client::Kind::Full).await?;
        if self.saved.get_untracked()
            && let Some(state) = client::open_saved().await?
        {
            self.show(state);
            return Ok(());
        }
        let shown = self.corpus.get_untracked().ok_or(SessionError::NothingShown)?;
        // The snapshot alone: the sample questions and the lesson are shown already.
        let bytes = browser::fetch_bytes(&shown.snapshot).await.map_err(corpora::CorpusError::from)?;
        self.show(client::open(&shown.snapshot, bytes).await?);
        // As published: files added next start a corpus of their own again.
        self.own.set(false);
        Ok(())
    }

    /// The engine answering crashed, a call waiting on it or not: a new one starts with the index as it
    /// was, and the user is told once (an update whose parser crashed on a file names the file instead, and
    /// goes on without it). Every call the crash failed awaits this restart ([`Self::restarted`]).
    pub(super) fn engine_crashed(self, why: String, parsing: Option<String>) {
        let anew = parsing.is_none();
        if anew {
            let now = js_sys::Date::now();
            if self.restarted_at.get_value().is_some_and(|at| now - at < RESTART_AGAIN_AFTER_MS) {
                return self.fail(format!(
                    "the engine stopped again ({why}) within a minute of its restart; reload the page to start it anew"
                ));
            }
            self.restarted_at.set_value(Some(now));
            // The engine held the only copy of an index of the user's own that this browser could not save.
            let lost = self.own.get_untracked() && !self.saved.get_untracked();
            self.notice.set(Some(match lost {
                false => format!("The engine stopped ({why}); it was restarted with the index as it was."),
                true => format!(
                    "The engine stopped ({why}); it was restarted, but your documents' index was not saved in \
                     this browser and is lost: the published index is shown again. Export keeps an index."
                ),
            }));
            self.step.set(Step::Starting);
        }
        let restart = async move {
            let restarted = self.restart_engine().await.map_err(|reason| reason.to_string());
            match &restarted {
                Ok(()) if anew => self.settle(),
                Ok(()) => {}
                Err(reason) => self.fail(reason.clone()),
            }
            restarted
        };
        let restart = restart.boxed_local().shared();
        self.restart.set_value(Some(restart.clone()));
        spawn_local(async move {
            let _ = restart.await;
        });
    }

    /// Waits for the restart after the last crash while one runs: why it failed, if it did; `None` when none
    /// runs.
    pub(super) async fn restarted(self) -> Option<Result<(), String>> {
        let restart = self.restart.get_value().filter(|restart| restart.peek().is_none())?;
        Some(restart.await)
    }

    /// What a failed request leaves: a refusal is reported; a crash was published too, and the call ends with
    /// the restart it brought (`engine_crashed`), which tells the user.
    pub async fn recover(self, failure: Failure) {
        match failure {
            Failure::Crashed { message, .. } => {
                // An engine that was being replaced: the one answering is still there.
                if self.restarted().await.is_none() {
                    self.notice.set(Some(format!("The engine stopped before it answered ({message}); ask again.")));
                }
            }
            refused => self.notice.set(Some(refused.to_string())),
        }
    }
}
