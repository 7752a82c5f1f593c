//! Unit tests of `entities`, beside it so the module itself reads in one sitting.

use super::mentions::{CaseFolded, is_whole_word};
use super::relations::{PhraseCandidate, Provenance, phrase_vocabulary, relation_type_name};
use super::table::*;
use crate::corpus::RelationType;
use crate::corpus::document::{LinkKind, Span};

#[test]
fn keys_and_candidates() {
    assert_eq!(normalize_key("Io_(moon)"), "io (moon)");
    assert_eq!(normalize_key("Saturn%20V"), "saturn v");
    assert_eq!(link_candidates("https://en.wikipedia.org/wiki/Io_(moon)#Orbit"), vec!["wiki/Io_(moon)", "Io_(moon)"]);
    assert_eq!(link_candidates("../moons/phobos.md"), vec!["../moons/phobos.md", "phobos.md", "phobos"]);
    assert!(link_candidates("#top").is_empty());
}

#[test]
fn external_names_are_readable() {
    assert_eq!(external_name("https://example.org/wiki/Saturn_V", LinkKind::Html, "rocket").unwrap(), "Saturn V");
    assert_eq!(external_name("Lunar Module#Design", LinkKind::Wiki, "LM").unwrap(), "Lunar Module");
    assert_eq!(external_name("https://nasa.gov/", LinkKind::Markdown, "NASA").unwrap(), "NASA");
}

fn candidate(key: &str, surface: &str) -> PhraseCandidate {
    PhraseCandidate {
        subject: 0,
        object: 1,
        key: key.into(),
        surface: surface.into(),
        provenance: Provenance { document: 0, chunk: None, evidence: None },
    }
}

#[test]
fn phrase_types_are_a_capped_vocabulary_of_repeated_wordings() {
    let candidates = [
        candidate("launch", "launched"),
        candidate("launch", "launches"),
        candidate("launch", "launched"),
        candidate("orbit", "orbits"),
        candidate("orbit", "orbits"),
        candidate("visit", "visited"),
    ];
    let names = |max_types| -> Vec<String> {
        let candidates = candidates.iter().map(|c| candidate(&c.key, &c.surface)).collect();
        phrase_vocabulary(candidates, max_types).into_iter().map(|(_, name)| name).collect()
    };
    // Wordings of one stem share the most frequent one's name; a wording seen once has no type of its own.
    assert_eq!(names(10), ["launched", "launched", "launched", "orbits", "orbits", "related_to"]);
    // Past the cap, the less frequent groups fall back to the generic type.
    assert_eq!(names(1), ["launched", "launched", "launched", "related_to", "related_to", "related_to"]);
}

#[test]
fn relation_labels_normalise() {
    assert_eq!(relation_type_name("Launched by"), "launched_by");
    assert_eq!(relation_type_name("  Tours / Concerts "), "tours_concerts");
    assert_eq!(RelationType { name: "tours".into() }.inverse_name(), "is_tours_of");
}

#[test]
fn case_folding_maps_matches_back_to_the_original() {
    let folded = CaseFolded::new("Die STRASSE, die Straße, ÉCOLE.");
    let hits: Vec<&str> = folded
        .text
        .match_indices("strasse")
        .filter_map(|(at, m)| folded.original_span(at, at + m.len()))
        .map(|span| &"Die STRASSE, die Straße, ÉCOLE."[span.range()])
        .collect();
    assert_eq!(hits, vec!["STRASSE", "Straße"]);
    let at = folded.text.find("école").unwrap();
    assert_eq!(folded.original_span(at, at + "école".len()), Some(Span::new(26, 32)));
    let half = folded.text.rfind("ss").unwrap();
    assert_eq!(folded.original_span(half, half + 1), None);
}

#[test]
fn whole_words_only() {
    assert!(is_whole_word("the Moon rises", 4, 8));
    assert!(!is_whole_word("Moonlight", 0, 4));
}
