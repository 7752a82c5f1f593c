//! Citations in an answer: `[2]`, `[1, 3]`, `[1][4]`, `[2-3]`, each a 1-based passage number of the
//! context, kept when it names a passage that was given.

/// The passages an answer cites, in order of first citation, each once; numbers outside `1..=passages`
/// are left out (a model may invent them).
pub fn cited(answer: &str, passages: usize) -> Vec<usize> {
    let mut found = Vec::new();
    let mut rest = answer;
    while let Some(open) = rest.find('[') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find(']') else { break };
        let inside = &rest[..close];
        if inside.len() <= 40 && inside.chars().all(|c| c.is_ascii_digit() || ", -–".contains(c)) {
            for number in numbers(inside) {
                if (1..=passages).contains(&number) && !found.contains(&number) {
                    found.push(number);
                }
            }
        }
        rest = &rest[close..];
    }
    found
}

/// `1, 3` → 1, 3; `2-4` → 2, 3, 4 (a range of at most 20).
fn numbers(inside: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in inside.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bounds: Vec<usize> = part.split(['-', '–']).filter_map(|n| n.trim().parse().ok()).collect();
        match bounds.as_slice() {
            [one] => out.push(*one),
            [from, to] if from <= to && to - from < 20 => out.extend(*from..=*to),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_citation_form_is_read_and_invented_numbers_are_dropped() {
        let answer = "Apollo 11 landed in 1969 [2]. Armstrong walked first [1, 3][2]. See also [4-5] and [9]. \
            Arrays like a[i] or [link](x) are not citations.";
        assert_eq!(cited(answer, 5), vec![2, 1, 3, 4, 5]);
        assert_eq!(cited("No citation here.", 3), Vec::<usize>::new());
        assert_eq!(cited("Unclosed [1", 3), Vec::<usize>::new());
    }
}
