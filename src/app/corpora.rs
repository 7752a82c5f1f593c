//! The prebuilt corpora this build publishes (`corpora.json`, `store::published`): the demos in the app's
//! own build, a user's corpus in a site `quire site` wrote; and an index that the page's link names
//! (`?index=path/to/file.quire`, a file of the same site). Fetching them, with their sample questions and
//! lessons; opening is the session's.

use crate::store::published::{
    self, MANIFEST, NotOfThisSite, Published, PublishedCorpus, PublishedError, SampleQuestion,
};

use crate::retrieve::lesson::{Lesson, LessonError};
use crate::web::browser;
use crate::web::error::FetchError;

/// Why a published corpus (or the list of them) could not be had.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error(transparent)]
    Published(#[from] PublishedError),
    /// The sample questions at `url` are not a list of them.
    #[error("{url}: {error}")]
    Questions { url: String, error: serde_json::Error },
    #[error("{url}: {error}")]
    Lesson { url: String, error: LessonError },
}

/// The corpora this build publishes, and its title.
pub async fn fetch_published() -> Result<Published, CorpusError> {
    Ok(Published::from_json(&browser::fetch_bytes(MANIFEST).await?)?)
}

/// `corpus`'s snapshot, its sample questions (none when it lists none) and its lesson, if any.
pub async fn fetch(corpus: &PublishedCorpus) -> Result<(Vec<u8>, Vec<SampleQuestion>, Option<Lesson>), CorpusError> {
    let snapshot = browser::fetch_bytes(&corpus.snapshot).await?;
    let (questions, lesson) = fetch_extras(corpus).await?;
    Ok((snapshot, questions, lesson))
}

/// `corpus`'s sample questions (none when it lists none) and its lesson, if any.
pub async fn fetch_extras(corpus: &PublishedCorpus) -> Result<(Vec<SampleQuestion>, Option<Lesson>), CorpusError> {
    let questions = match &corpus.questions {
        Some(url) => serde_json::from_slice(&browser::fetch_bytes(url).await?)
            .map_err(|error| CorpusError::Questions { url: url.clone(), error })?,
        None => Vec::new(),
    };
    let lesson = match &corpus.lesson {
        Some(url) => {
            let text = String::from_utf8_lossy(&browser::fetch_bytes(url).await?).into_owned();
            Some(Lesson::parse(&text).map_err(|error| CorpusError::Lesson { url: url.clone(), error })?)
        }
        None => None,
    };
    Ok((questions, lesson))
}

/// The index the page's address names (`?index=`), as a corpus to open: the one of `published` at that
/// path, with its sample questions, else that file alone; an error when it names a file outside this site.
pub fn linked_index(published: &[PublishedCorpus]) -> Option<Result<PublishedCorpus, NotOfThisSite>> {
    Some(published::linked(published, &browser::query_parameter("index")?))
}
