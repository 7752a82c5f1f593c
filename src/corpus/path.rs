//! Document identity by path: every source is a normalised relative path (`/` separators, no `.` or
//! resolvable `..` segments), so `./x.md`, `x.md` and `notes/../x.md` name one document, and a relative
//! link is resolved against the path of the document that contains it.

use percent_encoding::percent_decode_str;

/// `./notes/../a\\b.md` → `a/b.md`. Leading `..` segments that cannot be resolved are kept; a leading `/`
/// (an absolute path) is kept too, since only the caller knows what it is relative to.
pub fn normalize(path: &str) -> String {
    let unified = path.replace('\\', "/");
    let absolute = unified.starts_with('/');
    let mut segments: Vec<&str> = Vec::new();
    for segment in unified.split('/') {
        match segment {
            "" | "." => {}
            ".." if segments.last().is_some_and(|last| *last != "..") => {
                segments.pop();
            }
            ".." if absolute => {}
            other => segments.push(other),
        }
    }
    let joined = segments.join("/");
    if absolute { format!("/{joined}") } else { joined }
}

/// Whether `path`, a file found inside a dropped or picked folder (`notes/.git/config`), is hidden there: a
/// file or folder below the dropped one whose name starts with a dot. Those are a tool's (version
/// control, an editor's backups), not the user's documents, and are not read; the dropped folder itself,
/// or a file picked alone, was chosen and is read whatever its name.
pub fn hidden_in_folder(path: &str) -> bool {
    path.split(['/', '\\']).skip(1).any(hidden_name)
}

/// Whether a file or folder named `name`, found below a chosen folder, is hidden there (the rule of
/// [`hidden_in_folder`]; the CLI's folder walk asks it of each entry, and so never enters `.git`).
pub fn hidden_name(name: &str) -> bool {
    name.starts_with('.') && name != "." && name != ".."
}

/// The folder part of a normalised path (`a/b.md` → `a`, `b.md` → ``).
pub fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// The document path a relative link names, seen from the document `from` (a normalised path, or
/// `file.jsonl#id` for a record): `../b.md` in `notes/a.md` is `b.md`, `/b.md` is the corpus root's
/// `b.md`. `None` for links that are not paths: other schemes, hosts, bare fragments.
pub fn resolve_relative(from: &str, target: &str) -> Option<String> {
    let target = target.trim();
    if target.contains("://") || target.starts_with("mailto:") || target.starts_with("//") {
        return None;
    }
    let path = target.split(['#', '?']).next().unwrap_or("");
    if path.is_empty() {
        return None;
    }
    let path = percent_decode_str(path).decode_utf8_lossy();
    let from_file = from.split_once('#').map_or(from, |(file, _)| file);
    let joined = match (path.strip_prefix('/'), parent(from_file)) {
        (Some(rooted), _) => rooted.to_string(),
        (None, "") => path.into_owned(),
        (None, folder) => format!("{folder}/{path}"),
    };
    Some(normalize(&joined))
}

/// Makes the paths of one upload distinct: a second `notes.md` (two files of one name dropped from different
/// folders) becomes `notes (2).md` instead of silently replacing the first.
pub fn disambiguate(paths: &mut [String]) {
    let mut seen = std::collections::HashSet::new();
    for path in paths.iter_mut() {
        let mut candidate = path.clone();
        let mut copy = 1;
        while !seen.insert(candidate.clone()) {
            copy += 1;
            let file_start = path.rfind('/').map_or(0, |slash| slash + 1);
            candidate = match path[file_start..].rsplit_once('.') {
                Some((stem, extension)) if !stem.is_empty() => {
                    format!("{}{stem} ({copy}).{extension}", &path[..file_start])
                }
                _ => format!("{path} ({copy})"),
            };
        }
        *path = candidate;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn files_below_a_dot_name_inside_a_folder_are_hidden() {
        assert!(hidden_in_folder("notes/.git/config"));
        assert!(hidden_in_folder("notes/drafts/.old.md"));
        assert!(!hidden_in_folder(".notes/moon.md"), "the dropped folder was chosen");
        assert!(!hidden_in_folder(".moon.md"), "a file picked alone was chosen");
        assert!(!hidden_in_folder("notes/moon.md"));
    }

    use super::*;

    #[test]
    fn paths_normalise_to_one_identity() {
        assert_eq!(normalize("./x.md"), "x.md");
        assert_eq!(normalize("notes/../x.md"), "x.md");
        assert_eq!(normalize("a\\b\\c.md"), "a/b/c.md");
        assert_eq!(normalize("a//b/./c.md"), "a/b/c.md");
        assert_eq!(normalize("../up.md"), "../up.md");
        assert_eq!(normalize("/srv/docs/../x.md"), "/srv/x.md");
        assert_eq!(normalize("/../x.md"), "/x.md");
    }

    #[test]
    fn one_upload_never_holds_two_files_of_one_path() {
        let mut paths: Vec<String> =
            ["notes.md", "a/notes.md", "notes.md", "notes.md", "README"].iter().map(|p| p.to_string()).collect();
        paths.push("README".into());
        disambiguate(&mut paths);
        assert_eq!(paths, ["notes.md", "a/notes.md", "notes (2).md", "notes (3).md", "README", "README (2)"]);
    }

    #[test]
    fn links_resolve_against_the_linking_document() {
        assert_eq!(resolve_relative("notes/a.md", "b.md").as_deref(), Some("notes/b.md"));
        assert_eq!(resolve_relative("notes/a.md", "../b.md#part").as_deref(), Some("b.md"));
        assert_eq!(resolve_relative("notes/a.md", "/other/c.md").as_deref(), Some("other/c.md"));
        assert_eq!(resolve_relative("a.md", "My%20Note.md?x=1").as_deref(), Some("My Note.md"));
        assert_eq!(resolve_relative("data/c.jsonl#7", "d.md").as_deref(), Some("data/d.md"));
        assert_eq!(resolve_relative("a.md", "https://example.org/b.md"), None);
        assert_eq!(resolve_relative("a.md", "#section"), None);
    }
}
