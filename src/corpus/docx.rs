//! Word documents (Office Open XML, `.docx`): headings from paragraph styles (the style's name, `heading 1`…,
//! which Word keeps in English whatever the interface language, or its outline level), list paragraphs as
//! list items, tables as their header row once, then one block of values per row, hyperlinks as links, the core properties'
//! title. The `Title` paragraph names the document and is not repeated in its text.

use std::collections::HashMap;

use roxmltree::Node;

use super::Malformed;
use super::document::{BlockKind, DocumentBuilder, LinkKind, Metadata};
use super::package::{self, Nested, Package, parse_xml};
use super::table::table_rows;

const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PACKAGE_RELATIONSHIPS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";

/// What a paragraph style makes of its paragraphs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Heading(u8),
    Title,
    List,
    Body,
}

pub fn parse(bytes: &[u8], builder: &mut DocumentBuilder) -> Result<Metadata, Malformed> {
    let mut package = Package::open(bytes, "DOCX")?;
    let body_xml = package.required("word/document.xml")?;
    let styles = match package.part("word/styles.xml")? {
        Some(xml) => style_roles(&parse_xml(&xml, "word/styles.xml")?),
        None => HashMap::new(),
    };
    let links = match package.part("word/_rels/document.xml.rels")? {
        Some(xml) => hyperlink_targets(&parse_xml(&xml, "word/_rels/document.xml.rels")?),
        None => HashMap::new(),
    };
    let core = match package.part("docProps/core.xml")? {
        Some(xml) => package::dublin_core(&parse_xml(&xml, "docProps/core.xml")?),
        None => Metadata::default(),
    };
    let document = parse_xml(&body_xml, "word/document.xml")?;
    let body = document
        .root_element()
        .children()
        .find(|n| n.has_tag_name((W, "body")))
        .ok_or("not a valid DOCX file: the document has no body")?;
    let mut walker = Walker { builder, styles: &styles, links: &links, title: None, nesting: 0 };
    walker.blocks(body);
    walker.builder.end_block();
    Ok(Metadata { title: core.title.or(walker.title), ..core })
}

fn attribute<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.attribute((W, name))
}

/// Each paragraph style's role, by style id, following `basedOn` for outline levels set on a parent.
fn style_roles(styles: &roxmltree::Document) -> HashMap<String, Role> {
    let mut direct: HashMap<String, (Option<Role>, Option<String>)> = HashMap::new();
    for style in styles.descendants().filter(|n| n.has_tag_name((W, "style"))) {
        let Some(id) = attribute(style, "styleId") else { continue };
        let child =
            |name: &str| style.descendants().find(|n| n.has_tag_name((W, name))).and_then(|n| attribute(n, "val"));
        let name = child("name").unwrap_or(id).to_lowercase();
        let outline = child("outlineLvl").and_then(|v| v.parse::<u8>().ok()).filter(|&l| l < 9);
        let role = match name.as_str() {
            "title" => Some(Role::Title),
            _ if name.starts_with("heading ") => name[8..].trim().parse::<u8>().ok().map(Role::Heading),
            _ if name.starts_with("list") => Some(Role::List),
            _ => outline.map(|l| Role::Heading(l + 1)),
        };
        direct.insert(id.to_string(), (role, child("basedOn").map(str::to_string)));
    }
    let resolve = |id: &str| {
        let mut current = Some(id.to_string());
        for _ in 0..16 {
            let (role, parent) = direct.get(current.as_deref()?)?;
            if role.is_some() {
                return *role;
            }
            current = parent.clone();
        }
        None
    };
    direct.keys().filter_map(|id| resolve(id).map(|role| (id.clone(), role))).collect()
}

/// Relationship id → target, for hyperlinks.
fn hyperlink_targets(relationships: &roxmltree::Document) -> HashMap<String, String> {
    relationships
        .descendants()
        .filter(|n| n.has_tag_name((PACKAGE_RELATIONSHIPS, "Relationship")))
        .filter_map(|n| Some((n.attribute("Id")?.to_string(), n.attribute("Target")?.to_string())))
        .collect()
}

struct Walker<'w, 'b> {
    builder: &'b mut DocumentBuilder,
    styles: &'w HashMap<String, Role>,
    links: &'w HashMap<String, String>,
    /// The first `Title` paragraph's text.
    title: Option<String>,
    /// Elements entered and not yet left (see `package::MAX_NESTING`).
    nesting: usize,
}

impl Nested for Walker<'_, '_> {
    fn nesting(&mut self) -> &mut usize {
        &mut self.nesting
    }
}

impl Walker<'_, '_> {
    /// Paragraphs and tables in order, through content controls and tracked insertions.
    fn blocks(&mut self, container: Node) {
        self.nested(|walker| walker.blocks_in(container));
    }

    fn blocks_in(&mut self, container: Node) {
        for node in container.children().filter(Node::is_element) {
            match node.tag_name().name() {
                "p" if node.tag_name().namespace() == Some(W) => self.paragraph(node),
                "tbl" => self.table(node),
                "sdt" | "sdtContent" | "ins" | "customXml" | "smartTag" => self.blocks(node),
                _ => {}
            }
        }
    }

    fn role(&self, paragraph: Node) -> Role {
        let properties = paragraph.children().find(|n| n.has_tag_name((W, "pPr")));
        let property = |name: &str| properties.and_then(|p| p.children().find(|n| n.has_tag_name((W, name))));
        let outline = property("outlineLvl").and_then(|n| attribute(n, "val")?.parse::<u8>().ok()).filter(|&l| l < 9);
        let styled = property("pStyle").and_then(|n| attribute(n, "val")).and_then(|id| self.styles.get(id).copied());
        match (outline, styled) {
            (Some(level), _) => Role::Heading(level + 1),
            (None, Some(role)) => role,
            (None, None) if property("numPr").is_some() => Role::List,
            (None, None) => Role::Body,
        }
    }

    fn paragraph(&mut self, paragraph: Node) {
        let kind = match self.role(paragraph) {
            Role::Title => return package::keep_first_title(&mut self.title, &runs_text(paragraph)),
            Role::Heading(level) => BlockKind::Heading { level: level.clamp(1, 6) },
            Role::List => BlockKind::ListItem,
            Role::Body => BlockKind::Paragraph,
        };
        self.builder.start_block(kind);
        self.inline(paragraph);
        self.builder.end_block();
    }

    /// Runs, breaks and hyperlinks inside a paragraph.
    fn inline(&mut self, node: Node) {
        self.nested(|walker| walker.inline_in(node));
    }

    fn inline_in(&mut self, node: Node) {
        for child in node.children().filter(Node::is_element) {
            match child.tag_name().name() {
                "t" => self.builder.push_text(child.text().unwrap_or_default()),
                "tab" => self.builder.push_text(" "),
                "br" | "cr" => self.builder.push_break(),
                "hyperlink" => {
                    let target = child
                        .attribute((R, "id"))
                        .and_then(|id| self.links.get(id).cloned())
                        .or_else(|| attribute(child, "anchor").map(|a| format!("#{a}")));
                    match target {
                        Some(target) => {
                            self.builder.start_link(&target, LinkKind::Html);
                            self.inline(child);
                            self.builder.end_link();
                        }
                        None => self.inline(child),
                    }
                }
                "r" | "ins" | "smartTag" | "sdt" | "sdtContent" | "fldSimple" | "customXml" => self.inline(child),
                _ => {}
            }
        }
    }

    /// One block per row, under the header row Word marks (`tblHeader`), else as `table_rows` decides.
    fn table(&mut self, table: Node) {
        let rows: Vec<Node> = table.children().filter(|n| n.has_tag_name((W, "tr"))).collect();
        let marked = rows.first().is_some_and(|row| row.descendants().any(|n| n.has_tag_name((W, "tblHeader"))));
        let mut cells: Vec<Vec<String>> = rows
            .iter()
            .map(|row| {
                row.children()
                    .filter(|n| n.has_tag_name((W, "tc")))
                    .map(|cell| super::document::collapse_whitespace(&runs_text(cell)))
                    .collect()
            })
            .collect();
        let header = (marked && !cells.is_empty()).then(|| cells.remove(0));
        table_rows(header, cells, self.builder);
    }
}

/// The text of every run under a node, paragraphs apart.
fn runs_text(node: Node) -> String {
    let mut text = String::new();
    for part in node.descendants().filter(Node::is_element) {
        match part.tag_name().name() {
            "t" => text.push_str(part.text().unwrap_or_default()),
            "tab" | "br" | "p" => text.push(' '),
            _ => {}
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_name_headings_lists_and_the_title_in_any_language() {
        let styles = format!(
            r#"<w:styles xmlns:w="{W}">
              <w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style>
              <w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>
              <w:style w:type="paragraph" w:styleId="Aufz"><w:name w:val="List Bullet"/></w:style>
              <w:style w:type="paragraph" w:styleId="Kapitel"><w:name w:val="Kapitel"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
              <w:style w:type="paragraph" w:styleId="Unterkapitel"><w:name w:val="Sub"/><w:basedOn w:val="Kapitel"/></w:style>
              <w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
            </w:styles>"#
        );
        let roles = style_roles(&parse_xml(&styles, "styles").unwrap());
        assert_eq!(roles["berschrift1"], Role::Heading(1));
        assert_eq!(roles["Titel"], Role::Title);
        assert_eq!(roles["Aufz"], Role::List);
        assert_eq!(roles["Kapitel"], Role::Heading(2));
        assert_eq!(roles["Unterkapitel"], Role::Heading(2));
        assert!(!roles.contains_key("Normal"));
    }
}
