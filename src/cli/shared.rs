//! What the commands share: the result they return and the message an error prints, the model and snapshots
//! loaded and saved (a snapshot written beside its place and renamed, never left half-written), progress
//! bars, and retrieval methods by name.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};

use quire::embed::{EmbedError, Embedder, EmbeddingModel, TextEmbedder};
use quire::retrieve;
use quire::store::IndexedCorpus;

pub(super) type CliResult = anyhow::Result<()>;

/// `error` with the causes its contexts wrap, joined by `: ` as `{:#}` joins them (`x.quire: the snapshot is
/// truncated`), except that a cause the message so far already ends with is not said again: a
/// library error that shows its source in its own words (`…: {0}`) also gives it as its `source()`.
pub(super) fn message(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain().map(ToString::to_string) {
        if message.is_empty() {
            message = cause;
        } else if !message.ends_with(&cause) {
            message = format!("{message}: {cause}");
        }
    }
    message
}

pub(super) fn model_dir(explicit: &Option<PathBuf>) -> PathBuf {
    explicit.clone().unwrap_or_else(|| {
        let local = PathBuf::from("models");
        if local.join(EmbeddingModel::MiniLm.spec().model_file).exists() {
            local
        } else {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
        }
    })
}

/// A model of the catalogue by its id, as `--model` takes it.
pub(super) fn parse_model(id: &str) -> Result<EmbeddingModel, String> {
    EmbeddingModel::named(id).ok_or_else(|| {
        let known: Vec<&str> = EmbeddingModel::ALL.iter().map(|model| model.spec().id).collect();
        format!("unknown model `{id}` (known: {})", known.join(", "))
    })
}

/// The catalogue's models as a command loads them: from the model folder, each when first needed, then kept
/// for the rest of the command.
pub(super) struct Models {
    dir: PathBuf,
    loaded: Vec<Rc<Embedder>>,
}

impl Models {
    pub fn new(explicit: &Option<PathBuf>) -> Self {
        Models { dir: model_dir(explicit), loaded: Vec::new() }
    }

    pub fn load(&mut self, kind: EmbeddingModel) -> Result<Rc<Embedder>, EmbedError> {
        if let Some(embedder) = self.loaded.iter().find(|embedder| embedder.model() == kind) {
            return Ok(embedder.clone());
        }
        let embedder = Rc::new(Embedder::from_dir(&self.dir, kind)?);
        self.loaded.push(embedder.clone());
        Ok(embedder)
    }

    /// The model `index` was embedded by, which its questions must be embedded by too.
    pub fn for_index(&mut self, index: &IndexedCorpus) -> anyhow::Result<Rc<Embedder>> {
        let Some(kind) = EmbeddingModel::of(index.model()) else {
            bail!("the index was embedded by {}, a model this build of Quire does not have", index.model().name);
        };
        let embedder = self.load(kind)?;
        index.check_model(embedder.identity())?;
        Ok(embedder)
    }
}

/// A file's path as messages name it (`x.quire: the snapshot is truncated`).
pub(super) fn named(path: &Path) -> impl FnOnce() -> String + '_ {
    move || path.display().to_string()
}

pub(super) fn load_snapshot(path: &Path) -> anyhow::Result<IndexedCorpus> {
    let bytes = std::fs::read(path).with_context(named(path))?;
    IndexedCorpus::from_snapshot(&bytes).with_context(named(path))
}

pub(super) fn save_snapshot(index: &IndexedCorpus, path: &Path) -> CliResult {
    let bytes = index.to_snapshot()?;
    let temporary = path.with_extension("quire.partial");
    std::fs::write(&temporary, &bytes).with_context(named(&temporary))?;
    std::fs::rename(&temporary, path).with_context(named(path))?;
    eprintln!("wrote {} ({:.1} KiB)", path.display(), bytes.len() as f64 / 1024.0);
    Ok(())
}

pub(super) fn progress(total: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let template = format!("{label:>9} [{{bar:30}}] {{pos}}/{{len}} {{per_sec}} eta {{eta}} {{wide_msg}}");
    bar.set_style(ProgressStyle::with_template(&template).expect("static template").progress_chars("=> "));
    bar
}

pub(super) fn parse_methods(names: &[String], fusion_model: Option<&Path>) -> anyhow::Result<Vec<retrieve::Method>> {
    let is_learned = |name: &String| name.trim().eq_ignore_ascii_case(retrieve::LEARNED);
    if fusion_model.is_some() && !names.iter().any(is_learned) {
        bail!("--fusion-model is run by the `{}` method only, and it was not asked for", retrieve::LEARNED);
    }
    let model = fusion_model.map(load_fusion_model).transpose()?;
    let method = |name: &String| match &model {
        Some(model) if is_learned(name) => Ok(retrieve::Method::Learned(model.clone())),
        _ => retrieve::Method::parse(name),
    };
    Ok(names.iter().map(method).collect::<Result<_, _>>()?)
}

pub(super) fn load_fusion_model(path: &Path) -> anyhow::Result<Arc<retrieve::FusionModel>> {
    let bytes = std::fs::read(path).with_context(named(path))?;
    let model = retrieve::FusionModel::from_bytes(&bytes).with_context(named(path))?;
    Ok(Arc::new(model))
}
