//! What changes the index shown: files added and removed (a parser's crash skips its file and restarts
//! the engine), node vectors added before a method that reads them, and what this browser keeps of it
//! (saved after each change, exported, forgotten).

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{EXPORT_NAME, IndexSession};
use crate::corpus::ReportLine;
use crate::web::calls::{AddNodeVectors, Export, Save, Update, Updated};
use crate::web::client::{self, Failure, Lifecycle};
use crate::web::protocol::FileBytes;
use crate::web::{browser, storage};

impl IndexSession {
    /// Saves the index shown in this browser, where the browser can keep it (the storage line says where it
    /// cannot); once saved, the browser is asked to keep it under storage pressure.
    pub(super) async fn persist(self) {
        self.saved.set(false);
        if !storage::offered() {
            return;
        }
        match client::call(Save).await {
            Ok(()) => self.saved.set(true),
            Err(failure) => self.notice.set(Some(failure.to_string())),
        }
        self.usage.set(storage::usage().await);
        if self.saved.get_untracked() && self.usage.get_untracked().is_some_and(|usage| !usage.persistent) {
            // Firefox asks the user, who may answer late or never: nothing waits for it.
            spawn_local(async move {
                if storage::ask_to_persist().await {
                    self.usage.set(storage::usage().await);
                }
            });
        }
    }

    /// Adds `files` and removes `removed`. A file whose parser crashes the engine is skipped with an error
    /// naming it; the engine restarts with the index as it was and the update goes on with the other files.
    async fn update_index(self, mut files: Vec<FileBytes>, removed: Vec<String>) {
        if self.engine.with_untracked(Lifecycle::by_fragments) {
            return self.notice.set(Some(
                "The site's whole index is still loading: files can be added or removed once it has.".into(),
            ));
        }
        self.indexing_files.set(files.len());
        let mut crashed_on = Vec::new();
        let result = loop {
            match client::call(Update { files: files.clone(), removed: removed.clone() }).await {
                Err(Failure::Crashed { message, parsing: Some(file) }) => {
                    crashed_on.push(format!("{file}: the parser crashed on this file ({message}); it was skipped"));
                    // The engine names a file as its pipeline does, by its normalised path.
                    let before = files.len();
                    files.retain(|f| crate::corpus::path::normalize(&f.path) != file);
                    // The crash restarts the engine with the index as it was (`engine_crashed`).
                    let stopped = match self.restarted().await {
                        Some(Err(reason)) => Some(reason),
                        Some(Ok(())) if files.len() < before => None,
                        _ => Some(format!("{file}: the parser crashed on this file ({message})")),
                    };
                    if let Some(reason) = stopped {
                        self.indexing_files.set(0);
                        return self.fail(reason);
                    }
                }
                other => break other,
            }
        };
        self.indexing_files.set(0);
        match result {
            Ok(Updated { mut outcome, state }) => {
                let crashes = crashed_on.into_iter().map(|text| ReportLine { text, problem: true, files: Vec::new() });
                outcome.report.splice(0..0, crashes);
                self.last_outcome.set(Some(outcome));
                self.settle();
                if let Some(state) = state {
                    self.show(state);
                    self.own.set(true);
                    self.persist().await;
                }
            }
            Err(Failure::Refused(reason)) => self.fail(reason.to_string()),
            Err(crash) => self.recover(crash).await,
        }
    }

    /// Before a method runs that searches page, section, entity or relation vectors (`reads_node_vectors`):
    /// an index of chunk vectors gains them, with the progress of indexing (a Cancel keeps it as it was), and
    /// is saved with them. Whether the method may run.
    pub async fn vectors_for(self, reads_node_vectors: bool) -> bool {
        if !reads_node_vectors || self.summary.get_untracked().is_none_or(|summary| summary.node_vectors) {
            return true;
        }
        if self.indexing_files.get_untracked() > 0 {
            self.notice.set(Some(
                "This method searches pages, sections, entities and relations, which are embedded after the files \
                 being indexed now: ask again when indexing is done, or use a method of chunks meanwhile."
                    .into(),
            ));
            return false;
        }
        match client::call(AddNodeVectors).await {
            Ok(Updated { outcome, state }) => {
                self.settle();
                let Some(state) = state.filter(|_| !outcome.cancelled) else { return false };
                self.notice.set(Some(format!(
                    "Embedded this index's pages, sections, entities and relations ({} texts, {:.0} s): the \
                     retrievers that search them run on it from now on.",
                    outcome.embedded, outcome.seconds
                )));
                self.show(state);
                // Kept where the index is the user's own (saved); a published or linked one is not saved
                // over it by a question.
                if self.saved.get_untracked() {
                    self.persist().await;
                }
                true
            }
            Err(Failure::Refused(reason)) => {
                self.settle();
                self.notice.set(Some(reason.to_string()));
                false
            }
            Err(crash) => {
                self.recover(crash).await;
                false
            }
        }
    }

    pub fn remove(self, source: String) {
        spawn_local(self.update_index(Vec::new(), vec![source]));
    }

    /// Reads picked or dropped files and adds them; `unreadable` are those already known to be unreadable.
    /// Added to a published corpus as it was published, they start a corpus of their own (its documents are
    /// removed in the same update) unless `keep_published`.
    pub fn add_picked(self, picked: Vec<(String, web_sys::File)>, mut unreadable: Vec<String>, keep_published: bool) {
        let replaced = match keep_published || self.own.get_untracked() {
            true => Vec::new(),
            false => {
                self.documents.with_untracked(|documents| documents.iter().map(|(source, _)| source.clone()).collect())
            }
        };
        spawn_local(async move {
            let (files, unread) = browser::read_picked(picked).await;
            unreadable.extend(unread);
            self.notice.set((!unreadable.is_empty()).then(|| unreadable.join("; ")));
            self.update_index(files, replaced).await;
        });
    }

    /// Offers the index as a `.quire` file to download.
    pub fn export(self) {
        spawn_local(async move {
            let not_exported = match client::call(Export).await {
                Ok(snapshot) => {
                    browser::download(EXPORT_NAME, snapshot.0.buffer()).err().map(|refused| refused.to_string())
                }
                Err(failure) => Some(failure.to_string()),
            };
            self.notice.set(not_exported);
        })
    }

    /// Deletes the index saved in this browser; the index shown stays.
    pub fn forget(self) {
        spawn_local(async move {
            match storage::forget().await {
                Ok(()) => {
                    self.saved.set(false);
                    self.restored.set(false);
                    self.notice.set(Some(
                        "The saved index is forgotten: the next visit starts from the published index.".into(),
                    ));
                }
                Err(reason) => self.notice.set(Some(reason.to_string())),
            }
            self.usage.set(storage::usage().await);
        })
    }
}
