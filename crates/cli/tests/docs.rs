//! The documentation's own checks: every relative link in README.md and
//! docs/ (reports included) points at a file that exists, and at a heading
//! (or an `<a id>` anchor) that exists when it names one; the README stays a first screen, with its
//! two commands.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Markdown files whose links are checked.
fn pages() -> Vec<PathBuf> {
    let root = repo();
    let mut out = vec![root.join("README.md")];
    for dir in ["docs", "docs/reports", "docs/reports/pacers"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        v.sort();
        out.extend(v);
    }
    out
}

/// Inline links `](target)` outside code blocks and code spans.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans, whose brackets are not links.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(j) = after.find(')') else { break };
            out.push(after[..j].to_string());
            rest = &after[j..];
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, spaces to '-', punctuation
/// other than '-' and '_' dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> HashSet<String> {
    let mut fenced = false;
    let mut out = HashSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        } else if let Some(rest) = line.strip_prefix("<a id=\"") {
            // An explicit anchor, as the verify reports write them.
            if let Some((id, _)) = rest.split_once('"') {
                out.insert(id.to_string());
            }
        }
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") {
                continue;
            }
            let (file, anchor) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            checked += 1;
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", page.display()));
                continue;
            }
            if let Some(a) = anchor {
                if target.extension().is_some_and(|x| x == "md") {
                    let t = std::fs::read_to_string(&target).unwrap();
                    if !anchors(&t).contains(a) {
                        broken.push(format!("{}: {link}: no such heading", page.display()));
                    }
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} links found: is the scan broken?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_scan_finds_links_and_skips_code() {
    let t = "see [a](x.md) and `[b](y.md)`\n```\n[c](z.md)\n```\n[d](w.md#h-1)";
    assert_eq!(links(t), vec!["x.md", "w.md#h-1"]);
    assert_eq!(
        slug(" ECN, kernel bottlenecks and the emulator"),
        "ecn-kernel-bottlenecks-and-the-emulator"
    );
}

#[test]
fn the_readme_is_a_first_screen_with_its_two_commands() {
    let text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let n = text.lines().count();
    assert!(
        n <= 120,
        "README.md has {n} lines; reference detail belongs in docs/"
    );
    assert!(text.contains("cargo run --release -p dropless -- run"));
    assert!(text.contains("cargo test --workspace --release"));
}
