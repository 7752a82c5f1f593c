//! CommonMark with YAML front matter, `[text](target)` links and `[[Target|alias]]` wiki links.

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use yaml_rust2::{Yaml, YamlLoader};

use super::document::{BlockKind, DeclaredRelation, DocumentBuilder, LinkKind, Metadata, RelationOrigin};

/// Parses Markdown into `builder`; returns the front-matter metadata and any warnings.
pub fn parse(text: &str, builder: &mut DocumentBuilder) -> (Metadata, Vec<String>) {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_WIKILINKS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES;
    let mut walker = Walker::new(builder);
    for event in Parser::new_ext(text, options) {
        walker.event(event);
    }
    walker.builder.end_block();
    let mut warnings = Vec::new();
    let metadata = match walker.front_matter {
        Some(yaml) => front_matter(&yaml).unwrap_or_else(|reason| {
            warnings.push(format!("front matter ignored: {reason}"));
            Metadata::default()
        }),
        None => Metadata::default(),
    };
    (metadata, warnings)
}

struct Walker<'b> {
    builder: &'b mut DocumentBuilder,
    front_matter: Option<String>,
    in_metadata: bool,
    list_item_depth: usize,
    skip_depth: usize,
    table_header: Vec<String>,
    in_table_head: bool,
    cell_index: usize,
    header_cell: String,
}

impl<'b> Walker<'b> {
    fn new(builder: &'b mut DocumentBuilder) -> Self {
        Self {
            builder,
            front_matter: None,
            in_metadata: false,
            list_item_depth: 0,
            skip_depth: 0,
            table_header: Vec::new(),
            in_table_head: false,
            cell_index: 0,
            header_cell: String::new(),
        }
    }

    fn event(&mut self, event: Event) {
        if self.skip_depth > 0 {
            match event {
                Event::Start(_) => self.skip_depth += 1,
                Event::End(_) => self.skip_depth -= 1,
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) if self.in_metadata => {
                self.front_matter.get_or_insert_with(String::new).push_str(&text);
            }
            Event::Text(text) | Event::Code(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.text(&text)
            }
            Event::SoftBreak | Event::HardBreak => self.builder.push_break(),
            Event::Html(_) | Event::InlineHtml(_) | Event::FootnoteReference(_) | Event::TaskListMarker(_) => {}
            Event::Rule => self.builder.end_block(),
        }
    }

    fn text(&mut self, text: &str) {
        if self.in_table_head {
            self.header_cell.push_str(text);
        } else {
            self.builder.push_text(text);
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::MetadataBlock(_) => self.in_metadata = true,
            Tag::Heading { level, .. } => self.builder.start_block(BlockKind::Heading { level: level as u8 }),
            Tag::Paragraph if self.list_item_depth == 0 => self.builder.start_block(BlockKind::Paragraph),
            Tag::Item => {
                self.list_item_depth += 1;
                self.builder.start_block(BlockKind::ListItem);
            }
            Tag::CodeBlock(_) => self.builder.start_block(BlockKind::Preformatted),
            Tag::Image { .. } | Tag::FootnoteDefinition(_) => self.skip_depth = 1,
            Tag::Link { link_type, dest_url, .. } => self.start_link(link_type, &dest_url),
            Tag::Table(_) => self.table_header.clear(),
            Tag::TableHead => self.in_table_head = true,
            Tag::TableRow => {
                self.builder.start_block(BlockKind::TableRow);
                self.cell_index = 0;
            }
            Tag::TableCell => self.start_cell(),
            _ => {}
        }
    }

    fn start_link(&mut self, link_type: LinkType, dest_url: &str) {
        let kind = match link_type {
            LinkType::WikiLink { .. } => LinkKind::Wiki,
            LinkType::Email => return,
            _ => LinkKind::Markdown,
        };
        if !self.in_table_head {
            self.builder.start_link(dest_url, kind);
        }
    }

    fn start_cell(&mut self) {
        if self.in_table_head {
            self.header_cell.clear();
            return;
        }
        if self.cell_index > 0 {
            self.builder.push_text(";");
            self.builder.push_break();
        }
        if let Some(header) = self.table_header.get(self.cell_index).filter(|h| !h.is_empty()) {
            let label = format!("{header}: ");
            self.builder.push_text(&label);
            self.builder.push_break();
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::MetadataBlock(_) => self.in_metadata = false,
            TagEnd::Heading(_) | TagEnd::CodeBlock => self.builder.end_block(),
            TagEnd::Paragraph if self.list_item_depth == 0 => self.builder.end_block(),
            TagEnd::Item => {
                self.list_item_depth -= 1;
                self.builder.end_block();
            }
            TagEnd::Link if !self.in_table_head => self.builder.end_link(),
            TagEnd::TableHead => self.in_table_head = false,
            TagEnd::TableRow => self.builder.end_block(),
            TagEnd::TableCell if self.in_table_head => {
                self.table_header.push(self.header_cell.trim().to_string());
            }
            TagEnd::TableCell => self.cell_index += 1,
            _ => {}
        }
    }
}

/// Reads `title`, `aliases`, `type` and every other key whose values hold `[[Target]]` wiki links.
fn front_matter(yaml: &str) -> Result<Metadata, String> {
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| format!("invalid YAML: {e}"))?;
    let Some(Yaml::Hash(map)) = docs.into_iter().next() else {
        return Ok(Metadata::default());
    };
    let mut metadata = Metadata::default();
    for (key, value) in map {
        let Some(key) = key.as_str().map(str::trim) else { continue };
        let values = scalar_strings(&value);
        match key.to_lowercase().as_str() {
            "title" => metadata.title = values.into_iter().next(),
            "aliases" | "alias" => metadata.aliases.extend(values),
            "type" | "category" | "kind" => metadata.type_hint = values.into_iter().next(),
            _ => {
                for target in values.iter().flat_map(|v| wiki_targets(v)) {
                    metadata.declared_relations.push(DeclaredRelation {
                        label: key.to_string(),
                        target,
                        origin: RelationOrigin::FrontMatter,
                    });
                }
            }
        }
    }
    Ok(metadata)
}

fn scalar_strings(value: &Yaml) -> Vec<String> {
    match value {
        Yaml::String(s) => vec![s.clone()],
        Yaml::Integer(i) => vec![i.to_string()],
        Yaml::Real(r) => vec![r.clone()],
        Yaml::Boolean(b) => vec![b.to_string()],
        // YAML reads an unquoted `[[Target]]` as a nested one-element list.
        Yaml::Array(items) => {
            let nested: Vec<String> = items.iter().flat_map(scalar_strings).collect();
            if items.len() == 1 && matches!(items[0], Yaml::Array(_)) && nested.len() == 1 {
                vec![format!("[[{}]]", nested[0])]
            } else {
                nested
            }
        }
        _ => Vec::new(),
    }
}

/// Targets of `[[Target]]` / `[[Target|shown]]` occurrences in a front-matter value.
pub fn wiki_targets(value: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find("[[") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("]]") else { break };
        let inner = &after[..close];
        let target = inner.split('|').next().unwrap_or("").trim();
        if !target.is_empty() {
            targets.push(target.to_string());
        }
        rest = &after[close + 2..];
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::document::Format;

    fn parse_doc(text: &str) -> (crate::corpus::Document, Vec<String>) {
        let mut builder = DocumentBuilder::new();
        let (meta, warnings) = parse(text, &mut builder);
        (builder.finish("t.md".into(), [0; 16], Format::Markdown, meta, "t"), warnings)
    }

    #[test]
    fn front_matter_title_aliases_and_relations() {
        let (doc, warnings) = parse_doc(
            "---\ntitle: Apollo 11\naliases: [Apollo Eleven]\ntype: mission\nlaunched_by: \"[[Saturn V]]\"\ncrew: [\"[[Neil Armstrong]]\", \"[[Buzz Aldrin|Buzz]]\"]\ndestination: [[Moon]]\n---\n# Apollo 11\n\nText.\n",
        );
        assert!(warnings.is_empty());
        assert_eq!(doc.title, "Apollo 11");
        assert_eq!(doc.aliases, vec!["Apollo Eleven"]);
        assert_eq!(doc.type_hint.as_deref(), Some("mission"));
        let rels: Vec<(&str, &str)> =
            doc.declared_relations.iter().map(|r| (r.label.as_str(), r.target.as_str())).collect();
        assert_eq!(
            rels,
            vec![
                ("launched_by", "Saturn V"),
                ("crew", "Neil Armstrong"),
                ("crew", "Buzz Aldrin"),
                ("destination", "Moon")
            ]
        );
    }

    #[test]
    fn links_wiki_links_and_tables() {
        let (doc, _) = parse_doc(
            "# Mars\n\nMars has two moons, [Phobos](phobos.md) and [[Deimos|the small one]].\n\n## Data\n\n| Moon | Diameter |\n|---|---|\n| Phobos | 22 km |\n| Deimos | 12 km |\n",
        );
        let links: Vec<(&str, &str)> = doc.links.iter().map(|l| (l.target.as_str(), doc.slice(l.span))).collect();
        assert_eq!(links, vec![("phobos.md", "Phobos"), ("Deimos", "the small one")]);
        assert_eq!(doc.links[1].kind, LinkKind::Wiki);
        let rows: Vec<&str> =
            doc.blocks.iter().filter(|b| b.kind == BlockKind::TableRow).map(|b| doc.slice(b.span)).collect();
        assert_eq!(rows, vec!["Moon: Phobos; Diameter: 22 km", "Moon: Deimos; Diameter: 12 km"]);
    }

    #[test]
    fn invalid_front_matter_is_a_warning_not_a_failure() {
        let (doc, warnings) = parse_doc("---\ntitle: [unclosed\n---\nBody text here.\n");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(doc.text, "Body text here.");
    }

    #[test]
    fn list_items_are_blocks() {
        let (doc, _) = parse_doc("Intro.\n\n- first item\n- second **bold** item\n");
        let kinds: Vec<BlockKind> = doc.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, vec![BlockKind::Paragraph, BlockKind::ListItem, BlockKind::ListItem]);
        assert_eq!(doc.slice(doc.blocks[2].span), "second bold item");
    }
}
