//! `quire ask`: the question's best chunks (any retrieval method), then an answer streamed from the user's
//! LLM endpoint as it arrives, then the sources with the ones the answer cites marked. Presentation only:
//! the prompt, the request, the stream and the diagnosis of a failure are the engine's (`generate`).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use quire::embed::TextEmbedder;
use quire::generate::{self, ContextChunk, Endpoint, PromptStyle, Provider};
use quire::retrieve::assist::{Assist, AssistedRetrieval, Turn};
use quire::retrieve::{self, Method, ScoredChunk};
use quire::store::IndexedCorpus;

use super::shared::{CliResult, Models, load_snapshot, named, parse_methods};

#[derive(clap::Args)]
pub struct AskArgs {
    /// The snapshot whose documents answer (`.quire`).
    snapshot: PathBuf,
    /// The question to answer.
    question: String,
    /// The endpoint's base URL: an OpenAI-compatible one with its version (`http://127.0.0.1:1234/v1`), or
    /// Ollama's (`http://127.0.0.1:11434`).
    #[arg(long)]
    endpoint: String,
    /// `openai` (chat completions: OpenAI, LM Studio, llama.cpp, vLLM, Groq, OpenRouter) or `ollama`.
    #[arg(long, default_value = "openai")]
    provider: String,
    /// The model the endpoint runs (`llama3.2`, `gpt-4o-mini`); the error lists the endpoint's models when
    /// it does not know this one.
    #[arg(long)]
    model: String,
    /// The environment variable that holds the API key (a key on the command line is visible to other users
    /// of the machine).
    #[arg(long)]
    api_key_env: Option<String>,
    /// Chunks given as context.
    #[arg(short, default_value_t = 6)]
    k: usize,
    /// Retrieval method, as for `quire query`.
    #[arg(long, default_value = quire::retrieve::DEFAULT)]
    method: String,
    /// `brief` (at most three sentences) or `detailed`.
    #[arg(long, default_value = "brief")]
    style: String,
    /// Instructions to send instead of the style's (the system prompt), read from a file.
    #[arg(long)]
    prompt_file: Option<PathBuf>,
    /// Sampling temperature: low keeps the answer close to the context.
    #[arg(long, default_value_t = 0.2)]
    temperature: f32,
    /// Most tokens the endpoint may write for the answer.
    #[arg(long, default_value_t = 512)]
    max_tokens: u32,
    /// Seconds to wait for the endpoint to connect and to start answering.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// LLM-assisted retrieval before the answer: `traverser` (seed 000), `parsing` (seed 002) or `cot`
    /// (seed 004); its steps are printed to standard error.
    #[arg(long)]
    assist: Option<String>,
}

pub fn run(model_dir: &Option<PathBuf>, args: AskArgs) -> CliResult {
    let endpoint = endpoint(&args)?;
    let instructions = match &args.prompt_file {
        Some(path) => std::fs::read_to_string(path).with_context(named(path))?,
        None => PromptStyle::parse(&args.style)?.instructions().to_string(),
    };
    let method: Method = parse_methods(std::slice::from_ref(&args.method), None)?.remove(0);
    let index = load_snapshot(&args.snapshot)?;
    let mut models = Models::new(model_dir);
    let embedder = models.for_index(&index)?;
    let assist = args.assist.as_deref().map(Assist::parse).transpose()?;
    let node_vectors = method.reads_node_vectors() || assist.is_some_and(Assist::reads_node_vectors);
    let index = super::indexing::with_vectors_for(&mut models, index, node_vectors, Some(&args.snapshot))?;
    let vector = embedder.embed_query(&args.question)?;
    let timeout = Duration::from_secs(args.timeout);
    let hits = match assist {
        Some(assist) => {
            let embed = |text: &str| embedder.embed_query(text);
            assisted(
                &index,
                &endpoint,
                timeout,
                AssistedRetrieval::start(assist, method, &index, &args.question, vector, args.k)?,
                &embed,
            )?
        }
        None => method.rank(&index, retrieve::Query::new(&args.question, &vector), args.k).into_chunks(),
    };
    let views: Vec<_> = hits.iter().map(|hit| index.chunk_view(hit.chunk)).collect();
    let context: Vec<ContextChunk> =
        views.iter().map(|view| ContextChunk { label: view.label.clone(), text: view.text.clone() }).collect();
    let messages = generate::build_messages(&args.question, &context, &instructions);

    let mut stdout = std::io::stdout();
    let answer = generate::native::ask(&endpoint, &messages, timeout, &mut |text| {
        let _ = write!(stdout, "{text}");
        let _ = stdout.flush();
    })?;
    let sources: Vec<(String, String)> = views.iter().map(|view| (view.label.clone(), view.source.clone())).collect();
    println!("\n\n{}", generate::sources_list(&answer, &sources));
    Ok(())
}

/// Drives an LLM-assisted retrieval to its end, each LLM call answered in full; its trace goes to standard
/// error.
fn assisted(
    index: &IndexedCorpus,
    endpoint: &Endpoint,
    timeout: Duration,
    (mut retrieval, mut turn): (AssistedRetrieval, Turn),
    embed: quire::retrieve::assist::Embed<'_>,
) -> anyhow::Result<Vec<ScoredChunk>> {
    loop {
        match turn {
            Turn::Ask(messages) => {
                let reply = generate::native::ask(endpoint, &messages, timeout, &mut |_| {})?;
                turn = retrieval.resume(index, &reply, embed)?;
            }
            Turn::Done(chunks, trace) => {
                eprintln!("{}", trace.render());
                return Ok(chunks);
            }
        }
    }
}

fn endpoint(args: &AskArgs) -> anyhow::Result<Endpoint> {
    let mut endpoint = Endpoint::new(Provider::parse(&args.provider)?, &args.endpoint, &args.model);
    endpoint.temperature = args.temperature;
    endpoint.max_tokens = args.max_tokens;
    if let Some(variable) = &args.api_key_env {
        let key =
            std::env::var(variable).ok().with_context(|| format!("the environment variable {variable} is not set"))?;
        endpoint.api_key = Some(key);
    }
    Ok(endpoint)
}
