//! YAML read safely, for Markdown front matter and lesson files: a document that repeats a value by an
//! alias (`*name`) is refused before it is loaded. The loader copies the aliased value at every use, so a
//! few hundred bytes of aliases of aliases ("billion laughs") grow into gigabytes; the events are read once,
//! in linear time, and nothing Quire reads from YAML needs an alias. (Deep nesting is the parser's own
//! recursion limit's to refuse.)

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::{ScanError, Yaml, YamlLoader};

/// Why a text was not loaded as YAML.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum YamlError {
    #[error("invalid YAML: {0}")]
    Invalid(ScanError),
    #[error("it repeats values by YAML aliases (*name), which Quire does not expand")]
    Alias,
}

/// The documents of `text`; an error for invalid YAML or for an alias.
pub fn load(text: &str) -> Result<Vec<Yaml>, YamlError> {
    let mut parser = Parser::new_from_str(text);
    loop {
        match parser.next_token().map_err(YamlError::Invalid)?.0 {
            Event::Alias(_) => return Err(YamlError::Alias),
            Event::StreamEnd => break,
            _ => {}
        }
    }
    YamlLoader::load_from_str(text).map_err(YamlError::Invalid)
}
