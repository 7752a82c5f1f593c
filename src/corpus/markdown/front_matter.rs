//! A Markdown file's YAML front matter: its title, aliases, type, language and the relations it declares
//! (`key: "[[Target]]"`), read with `yaml-rust2`.

use yaml_rust2::Yaml;

use crate::corpus::Malformed;

use crate::corpus::document::{DeclaredRelation, Metadata, RelationOrigin};

/// Reads `title`, `aliases`, `type` and every other key whose values hold `[[Target]]` wiki links.
pub(super) fn read(yaml: &str) -> Result<Metadata, Malformed> {
    let docs = crate::yaml::load(yaml).map_err(|e| Malformed(e.to_string()))?;
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
            "lang" | "language" | "locale" => metadata.language = values.into_iter().next(),
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

pub(super) fn scalar_strings(value: &Yaml) -> Vec<String> {
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
pub(super) fn wiki_targets(value: &str) -> Vec<String> {
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
