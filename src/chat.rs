//! A chat message as LLM endpoints take it (a role and its text). A leaf both users of an LLM share:
//! LLM-assisted retrieval (`retrieve::assist`) writes its questions as messages, and generation writes the
//! answer prompt and sends both to the user's endpoint.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}
