//! [`Method`]: every way of ranking chunks that the CLI, `quire eval` and the app can name: one retriever
//! alone, a preset or a chosen fusion of several, or learned fusion; its names, descriptions and parsing,
//! so every list of choices and every help text is built from here. How a method runs is in `execute.rs`.

use std::sync::Arc;

use super::default_method::{self, DEFAULT, WORDS};
use super::fusion::learned::LearnedFusion;
use super::{Fusion, FusionModel, Retriever};

/// A named way to rank chunks: one retriever, several fused with weights, or several fused by a trained
/// network.
#[derive(Clone, Debug, PartialEq)]
pub enum Method {
    Single(Retriever),
    Fused {
        fusion: Fusion,
        inputs: Vec<(Retriever, f32)>,
    },
    Learned(Arc<dyn LearnedFusion>),
    /// The default: the hybrid's first documents, then the join's and the hybrid's in turn
    /// (`default_method.rs`).
    Default,
    /// The default without the embedding model: it reads no vector, whatever the query holds.
    Words,
}

/// The name of learned fusion, whichever model it runs.
pub const LEARNED: &str = "learned";

/// Fused methods known by a short name.
const PRESETS: [(&str, Fusion, &[Retriever], &str); 4] = [
    ("rrf", Fusion::Rrf, &[Retriever::Dense, Retriever::Bm25], "reciprocal-rank fusion (k = 60) of dense and BM25"),
    (
        "zsum",
        Fusion::Zsum,
        &[Retriever::Dense, Retriever::Bm25],
        "equal-weight sum of dense and BM25 scores standardised per query",
    ),
    ("rrf-all", Fusion::Rrf, &Retriever::SEEDS, "reciprocal-rank fusion of every seed retriever"),
    ("zsum-all", Fusion::Zsum, &Retriever::SEEDS, "equal-weight standardised sum of every seed retriever"),
];

impl Method {
    /// The retrievers whose lists it reads.
    pub fn inputs(&self) -> Vec<Retriever> {
        match self {
            Method::Single(retriever) => vec![*retriever],
            Method::Fused { inputs, .. } => inputs.iter().map(|(retriever, _)| *retriever).collect(),
            Method::Learned(model) => model.retrievers().to_vec(),
            Method::Default => default_method::INPUTS.to_vec(),
            Method::Words => default_method::WORDS_INPUTS.to_vec(),
        }
    }

    /// Whether it reads vectors of other nodes than chunks: run on an index of chunk vectors, the front end
    /// first adds them (`store::pipeline::Base::AllVectors`).
    pub fn reads_node_vectors(&self) -> bool {
        self.inputs().into_iter().any(Retriever::reads_node_vectors)
    }
    fn preset(fusion: Fusion, retrievers: &[Retriever]) -> Method {
        Method::Fused { fusion, inputs: retrievers.iter().map(|&r| (r, 1.0)).collect() }
    }

    /// The preset this method is, as (name, description).
    fn known_preset(&self) -> Option<(&'static str, &'static str)> {
        PRESETS.iter().find(|&&(_, f, rs, _)| *self == Self::preset(f, rs)).map(|&(name, _, _, about)| (name, about))
    }

    /// The default and the default without the model, then every retriever alone, then every preset, then
    /// learned fusion with the shipped model.
    pub fn catalogue() -> Vec<Method> {
        let singles = Retriever::all().map(Method::Single);
        let presets = PRESETS.iter().map(|&(_, fusion, inputs, _)| Self::preset(fusion, inputs));
        [Method::Default, Method::Words]
            .into_iter()
            .chain(singles)
            .chain(presets)
            .chain([Method::Learned(FusionModel::shipped())])
            .collect()
    }

    pub fn name(&self) -> String {
        match self {
            Method::Single(retriever) => retriever.name().to_string(),
            Method::Fused { fusion, inputs } => {
                if let Some((name, _)) = self.known_preset() {
                    return name.to_string();
                }
                let parts: Vec<String> = inputs
                    .iter()
                    .map(|&(r, w)| if w == 1.0 { r.name().to_string() } else { format!("{}*{w}", r.name()) })
                    .collect();
                format!("{}:{}", fusion.name(), parts.join("+"))
            }
            Method::Learned(_) => LEARNED.to_string(),
            Method::Default => DEFAULT.to_string(),
            Method::Words => WORDS.to_string(),
        }
    }

    pub fn description(&self) -> String {
        match self {
            Method::Default => default_method::description(),
            Method::Words => default_method::words_description(),
            Method::Single(retriever) => retriever.description(),
            Method::Fused { fusion, inputs } => self.known_preset().map_or_else(
                || format!("{} of {} lists", fusion.name(), inputs.len()),
                |(_, description)| description.to_string(),
            ),
            Method::Learned(model) => {
                let trained_on = model.about().get("dataset").map_or("", String::as_str);
                // Experimental: the shipped network ranks below the default on every labelled set
                // (docs/QUALITY.md, issue 28).
                format!(
                    "experimental: seed 000's network over {} retrievers' standardised scores{}",
                    model.retrievers().len(),
                    if trained_on.is_empty() { String::new() } else { format!(", trained on {trained_on}") }
                )
            }
        }
    }

    /// The catalogue's names, in its order, without loading learned fusion's network.
    pub fn names() -> Vec<&'static str> {
        let presets = PRESETS.iter().map(|&(name, ..)| name);
        [DEFAULT, WORDS]
            .into_iter()
            .chain(Retriever::all().map(Retriever::name))
            .chain(presets)
            .chain([LEARNED])
            .collect()
    }

    /// Every name [`Method::parse`] takes, for help texts and error messages: the catalogue's names, then
    /// the form of a chosen fusion.
    pub fn choices() -> String {
        format!("{}, or rrf:A+B*w… / zsum:A+B*w…", Self::names().join(", "))
    }

    /// A retriever (`path`), a preset (`rrf-all`), or a fusion of chosen retrievers with optional weights
    /// (`rrf:dense+bm25*2+path`, `zsum:dense+page`).
    pub fn parse(name: &str) -> Result<Self, MethodError> {
        let wanted = name.trim().to_ascii_lowercase();
        if let Some(retriever) = Retriever::parse(&wanted) {
            return Ok(Method::Single(retriever));
        }
        if wanted == LEARNED {
            return Ok(Method::Learned(FusionModel::shipped()));
        }
        if wanted == DEFAULT {
            return Ok(Method::Default);
        }
        if wanted == WORDS {
            return Ok(Method::Words);
        }
        if let Some(&(_, fusion, inputs, _)) = PRESETS.iter().find(|p| p.0 == wanted) {
            return Ok(Self::preset(fusion, inputs));
        }
        let unknown = |retriever: &str| MethodError::UnknownRetriever { retriever: retriever.to_string() };
        let Some((fusion, list)) = wanted.split_once(':') else { return Err(unknown(name)) };
        let method = || name.to_string();
        let fusion = match fusion {
            "rrf" => Fusion::Rrf,
            "zsum" => Fusion::Zsum,
            other => return Err(MethodError::UnknownFusion { fusion: other.to_string(), method: method() }),
        };
        let inputs = list
            .split('+')
            .map(|part| {
                let (retriever, weight) = part.split_once('*').unwrap_or((part, "1"));
                let retriever = Retriever::parse(retriever).ok_or_else(|| unknown(retriever))?;
                let weight: f32 = weight
                    .trim()
                    .parse()
                    .map_err(|_| MethodError::NotAWeight { weight: weight.to_string(), method: method() })?;
                if !weight.is_finite() || weight < 0.0 {
                    return Err(MethodError::BadWeight { input: part.to_string(), method: method() });
                }
                Ok((retriever, weight))
            })
            .collect::<Result<Vec<_>, MethodError>>()?;
        Ok(Method::Fused { fusion, inputs })
    }
}

/// Why a method name was not understood; each message lists what is known where that helps.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MethodError {
    #[error("unknown retriever `{retriever}` (known: {})", Method::choices())]
    UnknownRetriever { retriever: String },
    #[error("unknown fusion `{fusion}` in `{method}` (known: rrf, zsum)")]
    UnknownFusion { fusion: String, method: String },
    #[error("`{weight}` is not a weight in `{method}`")]
    NotAWeight { weight: String, method: String },
    #[error("weights must be finite and not negative (`{input}` in `{method}`)")]
    BadWeight { input: String, method: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_catalogue_s() {
        let catalogue: Vec<String> = Method::catalogue().iter().map(Method::name).collect();
        assert_eq!(Method::names(), catalogue);
    }

    #[test]
    fn method_names_round_trip() {
        for method in Method::catalogue() {
            assert_eq!(Method::parse(&method.name()), Ok(method.clone()), "{}", method.name());
        }
        let custom = Method::parse("rrf:dense+bm25*2+path").unwrap();
        assert_eq!(custom.name(), "rrf:dense+bm25*2+path");
        assert_eq!(Method::parse("rrf:dense+bm25").unwrap().name(), "rrf");
        let error = |name: &str| Method::parse(name).unwrap_err().to_string();
        assert!(error("graph").contains("known: default, words, dense, bm25, page"));
        assert!(error("rrf:dense+nope").contains("unknown retriever `nope`"));
        assert!(error("rrf:dense*-1").contains("not negative"));
        assert!(error("rrf:dense*x").contains("`x` is not a weight"));
        assert!(error("max:dense").contains("unknown fusion `max`"));
    }
}
