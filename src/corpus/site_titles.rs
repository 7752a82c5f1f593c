//! Site-wide title suffixes. A generated site ends every page's title with its own name ("Specifying
//! Dependencies - The Cargo Book"); kept, that name joins every chunk's context line, every page entity's
//! name and the query gazetteer, and tells one page from another nothing. A suffix after a separator is the
//! site's name when at least [`MIN_HOLDERS`] documents end with it and, in the folders holding them, at least
//! half the documents do: a shared ending among many unrelated titles ("– Men's doubles" in a Wikipedia
//! dump) is part of those titles and stays.

use std::collections::{HashMap, HashSet};

use super::document::Document;

/// Fewer documents than this sharing an ending do not make a site.
const MIN_HOLDERS: usize = 3;
/// What sites put between a page's title and their name.
const SEPARATORS: [&str; 6] = [" - ", " – ", " — ", " | ", " · ", " :: "];

/// Removes each site-wide suffix (see the module's note) from the titles of `documents`.
pub fn strip_site_suffixes(documents: &mut [Document]) {
    let mut holders: HashMap<String, Vec<usize>> = HashMap::new();
    for (index, document) in documents.iter().enumerate() {
        if let Some((_, suffix)) = split_suffix(&document.title) {
            holders.entry(suffix.to_lowercase()).or_default().push(index);
        }
    }
    let mut per_folder: HashMap<&str, usize> = HashMap::new();
    for document in documents.iter() {
        *per_folder.entry(folder(&document.source)).or_default() += 1;
    }
    let site_wide: HashSet<usize> = holders
        .values()
        .filter(|held| held.len() >= MIN_HOLDERS)
        .filter(|held| {
            let folders: HashSet<&str> = held.iter().map(|&i| folder(&documents[i].source)).collect();
            2 * held.len() >= folders.iter().map(|f| per_folder[f]).sum::<usize>()
        })
        .flatten()
        .copied()
        .collect();
    for index in site_wide {
        if let Some((title, _)) = split_suffix(&documents[index].title) {
            documents[index].title = title.to_string();
        }
    }
}

/// A title cut at its last separator, when both sides have text.
fn split_suffix(title: &str) -> Option<(&str, &str)> {
    let (cut, separator) =
        SEPARATORS.iter().filter_map(|s| title.rfind(s).map(|at| (at, s.len()))).max_by_key(|&(at, _)| at)?;
    let (head, tail) = (title[..cut].trim(), title[cut + separator..].trim());
    (!head.is_empty() && !tail.is_empty()).then_some((head, tail))
}

/// The folder a document's file is in (a JSONL record's, its file's); sources are normalised paths.
fn folder(source: &str) -> &str {
    super::path::parent(source.split_once('#').map_or(source, |(file, _)| file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::document::{DocumentBuilder, Format, Metadata};

    fn document(source: &str, title: &str) -> Document {
        let mut builder = DocumentBuilder::new();
        builder.push_text("text");
        let metadata = Metadata { title: Some(title.to_string()), ..Metadata::default() };
        builder.finish(source.to_string(), [0; 16], Format::Html, metadata, "untitled")
    }

    fn titles(documents: &[Document]) -> Vec<&str> {
        documents.iter().map(|d| d.title.as_str()).collect()
    }

    #[test]
    fn a_book_s_name_leaves_its_pages_titles() {
        let mut documents = vec![
            document("book/index.html", "Introduction - The Cargo Book"),
            document("book/reference/deps.html", "Specifying Dependencies - The Cargo Book"),
            document("book/reference/features.html", "Features - The Cargo Book"),
            document("book/reference/profiles.html", "Profiles – The Cargo Book"),
            document("notes/todo.md", "Plans - The Cargo Book"),
            document("notes/a.md", "A"),
            document("notes/b.md", "B"),
            document("notes/c.md", "C"),
        ];
        strip_site_suffixes(&mut documents);
        assert_eq!(
            titles(&documents),
            ["Introduction", "Specifying Dependencies", "Features", "Profiles", "Plans", "A", "B", "C"],
            "5 of the 8 documents in the holders' folders end with the book's name"
        );
    }

    #[test]
    fn an_ending_many_unrelated_titles_share_stays() {
        let mut documents: Vec<Document> =
            (0..20).map(|i| document(&format!("c.jsonl#{i}"), &format!("T{i}"))).collect();
        for year in ["1997", "1998", "1999"] {
            documents.push(document(&format!("c.jsonl#{year}"), &format!("{year} Wimbledon – Men's doubles")));
        }
        documents.push(document("c.jsonl#x", "Cats - "));
        strip_site_suffixes(&mut documents);
        assert_eq!(documents[20].title, "1997 Wimbledon – Men's doubles");
        assert_eq!(documents[23].title, "Cats -");
    }
}
