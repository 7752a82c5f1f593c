//! Which index is shown: the one the address links, else the one saved in this browser, else the first
//! corpus the build publishes; a published corpus chosen later, and an imported `.quire` file.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{IndexSession, SessionError};
use crate::app::corpora;
use crate::app::phase::Step;
use crate::store::published::{PublishedCorpus, SampleQuestion};
use crate::web::client::{self, Failure};
use crate::web::protocol::IndexState;
use crate::web::{browser, storage};

impl IndexSession {
    /// A whole index replaced (a published corpus, the saved one, an imported file): what was shown of the old one goes.
    /// `from_storage`: it is the index saved in this browser. `own`: it holds the user's documents, not a
    /// corpus as published.
    fn show_new_index(self, state: IndexState, questions: Vec<SampleQuestion>, from_storage: bool, own: bool) {
        self.show(state);
        self.own.set(own);
        self.lesson.set(None);
        self.search.new_index(questions);
        self.last_outcome.set(None);
        self.saved.set(from_storage);
        self.restored.set(from_storage);
    }

    /// Opens a published (or linked) corpus in place of the index shown.
    pub async fn open_corpus(self, chosen: PublishedCorpus) {
        if let Err(failure) = self.try_open_corpus(chosen).await {
            self.fail(failure.to_string());
        }
    }

    async fn try_open_corpus(self, chosen: PublishedCorpus) -> Result<(), SessionError> {
        self.step.set(Step::OpeningPublished);
        // The engine by words answers from the index's fragments where the site has them: a large index is
        // searchable after its lexicon, not after its whole snapshot. A site kept offline has the snapshot
        // at hand (its service worker keeps it, not the fragments).
        let by_fragments = client::current_kind() == Some(client::Kind::ByWords) && !browser::kept_offline();
        let by_fragments = match &chosen.fragments {
            Some(folder) if by_fragments => {
                let (questions, lesson) = corpora::fetch_extras(&chosen).await?;
                // Fragments that cannot be opened (a host that lacks them, a damaged lexicon) leave the snapshot.
                client::open_fragments(folder, &chosen.snapshot).await.ok().map(|state| (state, questions, lesson))
            }
            _ => None,
        };
        let (state, questions, lesson) = match by_fragments {
            Some(opened) => opened,
            None => {
                let (snapshot, questions, lesson) = corpora::fetch(&chosen).await?;
                let state = client::open(&chosen.snapshot, snapshot).await?;
                (state, questions, lesson)
            }
        };
        self.corpus.set(Some(chosen));
        self.show_new_index(state, questions, false, false);
        self.lesson.set(lesson);
        self.settle();
        Ok(())
    }

    /// Opens the index the address links; a failure is a notice, and the caller goes on as without a link.
    async fn open_linked(self, linked: PublishedCorpus) -> bool {
        let path = linked.snapshot.clone();
        if let Err(reason) = self.try_open_corpus(linked).await {
            self.notice.set(Some(format!("The link's index could not be opened: {reason}")));
            return false;
        }
        if storage::is_saved().await {
            self.notice.set(Some(format!(
                "Showing {path}, which the link names. The index saved in this browser is kept and opens on a \
                 visit without the link; a change to the one shown here replaces it."
            )));
        }
        true
    }

    /// The first index to show: the one the address links (`?index=`), else the one saved in this browser,
    /// else the first corpus the build publishes. A saved index that cannot be opened is left in place (a
    /// change replaces it, Forget removes it) and the published corpus opens.
    pub(super) async fn open_first_index(self) {
        let published = match corpora::fetch_published().await {
            Ok(published) => {
                self.title.set(published.title.clone());
                if let Some(title) = &published.title {
                    browser::set_document_title(&format!("{title} · Quire"));
                }
                self.published.set(published.corpora.clone());
                published.corpora
            }
            Err(reason) => {
                self.notice.set(Some(reason.to_string()));
                Vec::new()
            }
        };
        let linked = corpora::linked_index(&published);
        let first = published.into_iter().next();
        match linked {
            Some(Ok(linked)) if self.open_linked(linked.clone()).await => {
                return self.usage.set(storage::usage().await);
            }
            Some(Err(refused)) => self.notice.set(Some(refused.to_string())),
            _ => {}
        }
        let instead = first.as_ref().map_or_else(|| "nothing".to_string(), |corpus| format!("\"{}\"", corpus.title));
        let not_restored = |failure: Failure| {
            format!(
                "{failure}. Showing {instead} instead; your next change replaces the saved index, or Forget removes it."
            )
        };
        match (client::open_saved().await, first) {
            (Ok(Some(state)), _) => {
                self.show_new_index(state, Vec::new(), true, true);
                self.settle();
            }
            (restored, Some(first)) => {
                if let Err(failure) = restored {
                    self.notice.set(Some(not_restored(failure)));
                }
                self.open_corpus(first).await;
            }
            (restored, None) => {
                let why = restored.err().map(not_restored).or_else(|| self.notice.get_untracked()).unwrap_or_default();
                self.fail(format!("there is no index to open: {why}"));
            }
        }
        self.usage.set(storage::usage().await);
    }

    /// Replaces the index with an exported `.quire` file's, and saves it in this browser.
    pub fn import(self, file: web_sys::File) {
        spawn_local(async move {
            let bytes = match browser::read_file(&file).await {
                Ok(bytes) => bytes,
                // As a refusal: reported, the index kept.
                Err(unreadable) => return self.notice.set(Some(unreadable.to_string())),
            };
            match client::open(&file.name(), bytes).await {
                Ok(state) => {
                    self.notice.set(None);
                    self.show_new_index(state, Vec::new(), false, true);
                    self.persist().await;
                }
                Err(failure) => self.recover(failure).await,
            }
        });
    }
}
