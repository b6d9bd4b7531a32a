//! The HTML version of `dropless verify --report FILE`: the Markdown report
//! converted by a small converter for the subset the report and its
//! `REPORT.md` preambles use (headings, paragraphs, lists, tables, fenced
//! code, `code`, **bold**, links, images, `<a id="...">` anchors). The
//! plots (`img/*.png` beside the report) are embedded as data URIs, so the
//! page stands alone like the run and sweep pages.

use std::path::Path;

use super::{escape, PAGE_CSS};

/// `s` cut to `n` characters, with an ellipsis if it was longer.
pub(crate) fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut o: String = s.chars().take(n).collect();
        o.push('…');
        o
    }
}

/// The HTML page for the verification report `markdown`, titled `title`;
/// relative image paths are read from `base` (the report's directory).
pub fn verify_html(markdown: &str, title: &str, base: &Path) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"dropless {}\">\n<title>{}</title>\n<style>\n{PAGE_CSS}</style>\n\
         </head>\n<body class=\"md\">\n{}\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        escape(title),
        to_html(markdown, base)
    )
}

/// Splits a table line into cells at `|` not escaped as `\|`.
fn cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t
        .strip_suffix('|')
        .filter(|r| !r.ends_with('\\'))
        .unwrap_or(t);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push_str("\\|");
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cur).trim().to_string()),
            c => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    out
}

fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// A heading's anchor: lower case, letters and digits, words joined by `-`.
fn slug(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() {
            o.extend(c.to_lowercase());
        } else if (c == ' ' || c == '-') && !o.ends_with('-') {
            o.push('-');
        }
    }
    o.trim_matches('-').to_string()
}

/// `<a id="exp-1"></a>` as the report writes it: the id, if the line is
/// exactly that.
fn anchor_line(line: &str) -> Option<&str> {
    let id = line
        .trim()
        .strip_prefix("<a id=\"")?
        .strip_suffix("\"></a>")?;
    id.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        .then_some(id)
}

/// Converts the Markdown subset to HTML; all text is escaped.
fn to_html(md: &str, base: &Path) -> String {
    let mut out = String::new();
    let mut para: Vec<&str> = Vec::new();
    let mut list: Option<&str> = None;
    let mut lines = md.lines().peekable();
    let flush = |out: &mut String, para: &mut Vec<&str>, list: &mut Option<&str>| {
        if !para.is_empty() {
            out.push_str(&format!("<p>{}</p>\n", inline(&para.join("\n"), base)));
            para.clear();
        }
        if let Some(tag) = list.take() {
            out.push_str(&format!("</{tag}>\n"));
        }
    };
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("```") {
            flush(&mut out, &mut para, &mut list);
            let mut code = String::new();
            for l in lines.by_ref() {
                if l.trim_start().starts_with("```") {
                    break;
                }
                code.push_str(l);
                code.push('\n');
            }
            out.push_str(&format!("<pre><code>{}</code></pre>\n", escape(&code)));
        } else if t.is_empty() {
            flush(&mut out, &mut para, &mut list);
        } else if let Some(id) = anchor_line(t) {
            flush(&mut out, &mut para, &mut list);
            out.push_str(&format!("<a id=\"{}\"></a>\n", escape(id)));
        } else if let Some((level, text)) = heading(t) {
            flush(&mut out, &mut para, &mut list);
            out.push_str(&format!(
                "<h{level} id=\"{}\">{}</h{level}>\n",
                escape(&slug(text)),
                inline(text, base)
            ));
        } else if t.starts_with('|') && lines.peek().is_some_and(|n| is_separator(n)) {
            flush(&mut out, &mut para, &mut list);
            lines.next();
            out.push_str("<div class=\"table\"><table class=\"md\">\n<thead><tr>");
            for c in cells(t) {
                out.push_str(&format!("<th>{}</th>", inline(&c, base)));
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            while let Some(row) = lines.next_if(|l| l.trim_start().starts_with('|')) {
                out.push_str("<tr>");
                for c in cells(row) {
                    out.push_str(&format!("<td>{}</td>", inline(&c, base)));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody></table></div>\n");
        } else if let Some((tag, item)) = list_item(t) {
            if !para.is_empty() || list.is_some_and(|l| l != tag) {
                flush(&mut out, &mut para, &mut list);
            }
            if list.is_none() {
                out.push_str(&format!("<{tag}>\n"));
                list = Some(tag);
            }
            out.push_str(&format!("<li>{}</li>\n", inline(item, base)));
        } else if list.is_some() && line.starts_with("  ") {
            // A list item's continuation line: appended to the item.
            if out.ends_with("</li>\n") {
                out.truncate(out.len() - "</li>\n".len());
                out.push(' ');
                out.push_str(&inline(t, base));
                out.push_str("</li>\n");
            }
        } else {
            if list.is_some() {
                flush(&mut out, &mut para, &mut list);
            }
            para.push(t);
        }
    }
    flush(&mut out, &mut para, &mut list);
    out
}

fn heading(t: &str) -> Option<(usize, &str)> {
    let level = t.chars().take_while(|c| *c == '#').count();
    (1..=6)
        .contains(&level)
        .then(|| t[level..].strip_prefix(' '))
        .flatten()
        .map(|rest| (level, rest.trim()))
}

fn list_item(t: &str) -> Option<(&'static str, &str)> {
    if let Some(r) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
        return Some(("ul", r));
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        if let Some(r) = t[digits..].strip_prefix(". ") {
            return Some(("ol", r));
        }
    }
    None
}

/// A link target that cannot run script: web and mail links, anchors and
/// relative paths; anything else becomes `#`.
fn safe_url(u: &str) -> String {
    let lower = u.trim().to_ascii_lowercase();
    let scheme_end = lower.find(':');
    let first_sep = lower.find(['/', '?', '#']);
    let relative = match (scheme_end, first_sep) {
        (None, _) => true,
        (Some(c), Some(s)) => s < c,
        (Some(_), None) => false,
    };
    if relative
        || lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("mailto:")
    {
        escape(u.trim())
    } else {
        "#".into()
    }
}

/// An image's source: a relative PNG, JPEG, GIF or SVG file under `base`
/// embedded as a data URI; otherwise the (safe) path itself.
fn image_src(src: &str, base: &Path) -> String {
    let lower = src.to_ascii_lowercase();
    let mime = [
        (".png", "image/png"),
        (".jpg", "image/jpeg"),
        (".jpeg", "image/jpeg"),
        (".gif", "image/gif"),
        (".svg", "image/svg+xml"),
    ]
    .iter()
    .find(|(e, _)| lower.ends_with(e))
    .map(|(_, m)| *m);
    let relative = !src.contains(':') && !src.starts_with('/');
    if let (Some(mime), true) = (mime, relative) {
        if let Ok(bytes) = std::fs::read(base.join(src)) {
            return format!("data:{mime};base64,{}", base64(&bytes));
        }
    }
    safe_url(src)
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut o = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for ch in bytes.chunks(3) {
        let b = [ch[0], *ch.get(1).unwrap_or(&0), *ch.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= ch.len() {
                o.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                o.push('=');
            }
        }
    }
    o
}

/// `[text](target)` at the start of `s`: (text, target, bytes used).
fn bracket_link(s: &str) -> Option<(&str, &str, usize)> {
    let rest = s.strip_prefix('[')?;
    let mut depth = 1;
    let mut close = None;
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let after = rest[close + 1..].strip_prefix('(')?;
    let end = after.find(')')?;
    Some((&rest[..close], &after[..end], 1 + close + 2 + end + 1))
}

/// Inline Markdown of one paragraph, cell or heading, escaped.
fn inline(s: &str, base: &Path) -> String {
    let mut o = String::new();
    let mut strong = false;
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let c = rest.chars().next().expect("not at the end");
        if c == '\\' {
            if let Some(n) = rest[1..].chars().next().filter(char::is_ascii_punctuation) {
                o.push_str(&escape(&n.to_string()));
                i += 1 + n.len_utf8();
                continue;
            }
        } else if c == '`' {
            if let Some(end) = rest[1..].find('`') {
                o.push_str(&format!("<code>{}</code>", escape(&rest[1..1 + end])));
                i += end + 2;
                continue;
            }
        } else if rest.starts_with("![") {
            if let Some((alt, src, used)) = bracket_link(&rest[1..]) {
                o.push_str(&format!(
                    "<img src=\"{}\" alt=\"{}\">",
                    image_src(src.trim(), base),
                    escape(alt)
                ));
                i += 1 + used;
                continue;
            }
        } else if c == '[' {
            if let Some((text, href, used)) = bracket_link(rest) {
                o.push_str(&format!(
                    "<a href=\"{}\">{}</a>",
                    safe_url(href),
                    inline(text, base)
                ));
                i += used;
                continue;
            }
        } else if rest.starts_with("**") {
            o.push_str(if strong { "</strong>" } else { "<strong>" });
            strong = !strong;
            i += 2;
            continue;
        }
        o.push_str(&escape(&c.to_string()));
        i += c.len_utf8();
    }
    if strong {
        o.push_str("</strong>");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_the_report_subset() {
        let md = "# Title <x>\n\nSome `code <b>` and **bold** [link](#exp-1).\n\n\
                  | # | a \\| b | verdict |\n|---|---|---|\n| [1](#exp-1) | x \\| y | **pass** |\n\n\
                  <a id=\"exp-1\"></a>\n### 1. first\n\n- one\n- two\n\n\
                  [bad](javascript:alert(1)) ![plot](img/none.png)\n";
        let h = to_html(md, Path::new("/nonexistent"));
        assert!(h.contains("<h1 id=\"title-x\">Title &lt;x&gt;</h1>"), "{h}");
        assert!(h.contains("<code>code &lt;b&gt;</code>"));
        assert!(h.contains("<strong>bold</strong>"));
        assert!(h.contains("<th>a | b</th>"), "{h}");
        assert!(h.contains("<td>x | y</td>"));
        assert!(h.contains("<a id=\"exp-1\"></a>"));
        assert!(h.contains("<ul>\n<li>one</li>\n<li>two</li>\n</ul>"));
        assert!(h.contains("<a href=\"#\">bad</a>"), "{h}");
        assert!(h.contains("<img src=\"img/none.png\" alt=\"plot\">"));
        assert!(!h.contains("<x>") && !h.contains("<b>"));
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
