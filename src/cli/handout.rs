//! A lesson's printable handout (`quire site --lesson`): one static HTML page with each step's question and
//! note, the compared retrievers' first results side by side with the fused list, and the step's trace
//! drawn as SVG with the teaching view's layout (`TraceGraph::layout`) and colours. It needs no script.

use std::fmt::Write;

use quire::embed::{EmbedError, Embedder, TextEmbedder};
use quire::retrieve::lesson::{COLUMN_ROWS, Lesson, LessonStep, columns};
use quire::retrieve::trace::layout::short;
use quire::retrieve::trace::{Trace, TraceGraph};
use quire::retrieve::{Query, document_depth};
use quire::store::IndexedCorpus;

/// Documents each step asks for (the trace holds the chunks of these).
const RESULTS: usize = 5;
const LABEL_CHARS: usize = 28;
/// Seed 000's colours, as the app's stylesheet has them (www/style.css).
const STYLE: &str = "body{font-family:system-ui,sans-serif;color:#1d2330;max-width:60rem;margin:0 auto;padding:1rem}\
table{border-collapse:collapse;width:100%;font-size:0.9rem}th,td{border:1px solid #d9dee7;padding:0.3rem;vertical-align:top;text-align:left}\
.note{color:#5b6475}section{break-inside:avoid-page;margin-bottom:2rem}svg{width:100%;height:auto}\
.node text{font-size:11px;fill:#1d2330}.node circle{stroke:#fff;stroke-width:2}.chunk circle{fill:#2f8a4a}\
.section circle{fill:#2f64b5}.entity circle{fill:#b53a2f}.community circle{fill:#7a5aa6}.query circle{fill:#1d2330}\
.edge{stroke-width:1.5}.structural{stroke:#2f64b5}.semantic{stroke:#b53a2f}.retrieved{stroke:#9aa3b2;stroke-dasharray:4 3}\
.fused{stroke:#2f8a4a;stroke-opacity:0.6}.lane-label{font-size:12px;font-weight:600;fill:#5b6475}";

/// The handout for `lesson` on `index`, each step run as the page runs it.
pub fn write(
    lesson: &Lesson,
    site_title: &str,
    index: &IndexedCorpus,
    embedder: &Embedder,
) -> Result<String, EmbedError> {
    let mut page = String::new();
    let _ = write!(
        page,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n\
         <h1>{}</h1>\n<p class=\"note\">{} · {} steps · retrieval traced by Quire</p>\n",
        escape(&lesson.title),
        escape(&lesson.title),
        escape(site_title),
        lesson.steps.len()
    );
    for (number, step) in lesson.steps.iter().enumerate() {
        let vector = embedder.embed_query(&step.question)?;
        let (_, trace) = step
            .method()
            .rank(index, Query::new(&step.question, &vector), document_depth(RESULTS))
            .grouped(index, RESULTS);
        write_step(&mut page, number + 1, step, &trace, &trace.graph(index.corpus()));
    }
    page.push_str("</body></html>\n");
    Ok(page)
}

fn write_step(page: &mut String, number: usize, step: &LessonStep, trace: &Trace, graph: &TraceGraph) {
    let _ = writeln!(page, "<section class=\"step\"><h2>Step {number}: {}</h2>", escape(&step.question));
    if !step.note.is_empty() {
        let _ = writeln!(page, "<p class=\"note\">{}</p>", escape(&step.note));
    }
    let columns = columns(trace);
    page.push_str("<table><thead><tr><th>#</th>");
    for (name, _) in &columns {
        let _ = write!(page, "<th>{}</th>", escape(name));
    }
    page.push_str("</tr></thead><tbody>\n");
    for row in 0..COLUMN_ROWS {
        let _ = write!(page, "<tr><td>{}</td>", row + 1);
        for (_, labels) in &columns {
            let cell = labels.get(row).map_or(String::new(), |label| escape(label));
            let _ = write!(page, "<td>{cell}</td>");
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody></table>\n");
    page.push_str(&drawing(graph));
    page.push_str("</section>\n");
}

/// The trace graph as SVG, every stage shown.
fn drawing(graph: &TraceGraph) -> String {
    let layout = graph.layout();
    let mut svg = format!(
        "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0} {:.0}\" role=\"img\">",
        layout.width, layout.height
    );
    let seeds_x = quire::retrieve::trace::layout::column(quire::retrieve::trace::Stage::Seeds);
    for (name, top) in &layout.lanes {
        let _ = write!(
            svg,
            "<text class=\"lane-label\" x=\"{:.0}\" y=\"{:.0}\">{}</text>",
            seeds_x - 20.0,
            top - 6.0,
            escape(name)
        );
    }
    for edge in &graph.edges {
        let ((x1, y1), (x2, y2)) = (layout.positions[edge.from], layout.positions[edge.to]);
        let _ = write!(
            svg,
            "<line class=\"{}\" x1=\"{x1:.0}\" y1=\"{y1:.0}\" x2=\"{x2:.0}\" y2=\"{y2:.0}\"/>",
            edge.kind.css_class()
        );
    }
    for (node, (x, y)) in graph.nodes.iter().zip(&layout.positions) {
        let _ = write!(
            svg,
            "<g class=\"{}\" transform=\"translate({x:.0} {y:.0})\"><title>{}</title><circle r=\"8\"/><text x=\"12\" y=\"4\">{}</text></g>",
            node.css_class(),
            escape(&node.label),
            escape(&short(&node.label, LABEL_CHARS))
        );
    }
    svg.push_str("</svg><figcaption class=\"note\">Chunks green, sections and positional edges blue, pages, entities and semantic edges red; one band per retriever, then the fusion and the final context.</figcaption></figure>\n");
    svg
}

fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    let _ = pulldown_cmark_escape::escape_html(&mut escaped, text);
    escaped
}
