//! The expression language of experiment files: what an expectation
//! measures, what it expects, and the values a report's text quotes.
//!
//! ```text
//! expr    := or
//! or      := and ("or" and)*
//! and     := not ("and" not)*
//! not     := "not" not | cmp
//! cmp     := sum (("==" | "!=" | "<" | "<=" | ">" | ">=") sum)?
//! sum     := product (("+" | "-") product)*
//! product := unary (("*" | "/") unary)*
//! unary   := "-" unary | power
//! power   := postfix ("^" unary)?
//! postfix := atom ("(" args ")" | "[" expr "]" | "." name)*
//! atom    := number unit? | "string" | 'string' | true | false | name
//!          | "(" expr ")" | "[" (expr ("," expr)*)? "]"
//!          | "[" expr "for" name "in" expr ("if" expr)? "]"
//! args    := (arg ("," arg)*)?      arg := expr | name "=" expr
//! ```
//!
//! A number may carry a unit, converted to seconds or bits per second:
//! `20s`, `500ms`, `41.6us`, `100Mbps`, `1Gbps`; `5%` is 0.05. Values are
//! numbers, booleans, strings, lists and records (`flow(0).timeouts`).
//! `if(c, a, b)` evaluates only the branch it takes. Errors are one-line
//! strings; nothing here panics on any input.

use std::fmt;

/// A value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number (every quantity; counts too).
    Num(f64),
    /// A truth value.
    Bool(bool),
    /// Text.
    Str(String),
    /// A list.
    List(Vec<Value>),
    /// A record: named fields in order.
    Map(Vec<(String, Value)>),
}

impl Value {
    /// The number, or an error naming what it is instead.
    pub fn num(&self) -> Result<f64, String> {
        match self {
            Value::Num(x) => Ok(*x),
            Value::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
            v => Err(format!("expected a number, found {}", v.kind())),
        }
    }
    /// The truth value.
    pub fn truth(&self) -> Result<bool, String> {
        match self {
            Value::Bool(b) => Ok(*b),
            v => Err(format!("expected true or false, found {}", v.kind())),
        }
    }
    /// The list.
    pub fn list(&self) -> Result<&[Value], String> {
        match self {
            Value::List(v) => Ok(v),
            v => Err(format!("expected a list, found {}", v.kind())),
        }
    }
    /// The list as numbers.
    pub fn nums(&self) -> Result<Vec<f64>, String> {
        self.list()?.iter().map(Value::num).collect()
    }
    /// The string.
    pub fn str(&self) -> Result<&str, String> {
        match self {
            Value::Str(s) => Ok(s),
            v => Err(format!("expected a string, found {}", v.kind())),
        }
    }
    /// What kind of value this is, for errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Num(_) => "a number",
            Value::Bool(_) => "true/false",
            Value::Str(_) => "a string",
            Value::List(_) => "a list",
            Value::Map(_) => "a record",
        }
    }
    /// A field of a record.
    pub fn field(&self, name: &str) -> Result<Value, String> {
        match self {
            Value::Map(m) => m
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| {
                    format!(
                        "no field \"{name}\"; fields: {}",
                        m.iter()
                            .map(|(k, _)| k.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }),
            v => Err(format!("\".{name}\" needs a record, found {}", v.kind())),
        }
    }
    /// Converts JSON (from a `Serialize` result record) into a value.
    pub fn from_json(v: &serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Num(f64::NAN),
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Num(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => Value::Str(s.clone()),
            serde_json::Value::Array(a) => Value::List(a.iter().map(Value::from_json).collect()),
            serde_json::Value::Object(o) => Value::Map(
                o.iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v)))
                    .collect(),
            ),
        }
    }
    /// Converts a TOML value (from `[vars]`) into a value.
    pub fn from_toml(v: &toml::Value) -> Result<Value, String> {
        Ok(match v {
            toml::Value::Integer(i) => Value::Num(*i as f64),
            toml::Value::Float(f) => Value::Num(*f),
            toml::Value::Boolean(b) => Value::Bool(*b),
            toml::Value::String(s) => Value::Str(s.clone()),
            toml::Value::Array(a) => {
                Value::List(a.iter().map(Value::from_toml).collect::<Result<_, _>>()?)
            }
            toml::Value::Table(t) => Value::Map(
                t.iter()
                    .map(|(k, v)| Ok((k.clone(), Value::from_toml(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            toml::Value::Datetime(_) => return Err("a date is not a value".into()),
        })
    }
}

/// Compact number formatting for reports (4 significant digits or so).
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    // Integers up to rounding noise (30e9 ns * 1e-9 = 30.000000000000004).
    let x = if x.abs() >= 1.0 && (x - x.round()).abs() <= 1e-9 * x.abs() {
        x.round()
    } else {
        x
    };
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1e5 {
        if x.fract() == 0.0 && a < 1e9 {
            format!("{x:.0}")
        } else {
            format!("{x:.3e}")
        }
    } else if x.fract() == 0.0 {
        format!("{x:.0}")
    } else if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.3}")
    } else if a >= 1e-3 {
        format!("{x:.4}")
    } else {
        format!("{x:.3e}")
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(x) => write!(f, "{}", fmt_num(*x)),
            Value::Bool(b) => write!(f, "{}", if *b { "yes" } else { "no" }),
            Value::Str(s) => write!(f, "{s}"),
            Value::List(v) => {
                write!(f, "[")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, "]")
            }
            Value::Map(m) => {
                write!(f, "{{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                write!(f, "}}")
            }
        }
    }
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `^`
    Pow,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `and`
    And,
    /// `or`
    Or,
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A literal.
    Lit(Value),
    /// A name: a variable, a measure, a grid axis, an import.
    Name(String),
    /// `[a, b, c]`
    List(Vec<Expr>),
    /// `f(a, k = b)`
    Call(String, Vec<Expr>, Vec<(String, Expr)>),
    /// `x.name`
    Field(Box<Expr>, String),
    /// `x[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `-x`
    Neg(Box<Expr>),
    /// `not x`
    Not(Box<Expr>),
    /// `a op b`
    Bin(Op, Box<Expr>, Box<Expr>),
    /// `[body for var in iter for var2 in iter2 ... if cond]`
    Comp {
        /// The element.
        body: Box<Expr>,
        /// The bound names and the lists they run over, outermost first.
        fors: Vec<(String, Expr)>,
        /// An optional filter.
        cond: Option<Box<Expr>>,
    },
}

impl Expr {
    /// Every name this expression reads that is not bound inside it, and
    /// every function it calls (`(names, calls)`).
    pub fn free_names(&self) -> (Vec<String>, Vec<String>) {
        let mut names = Vec::new();
        let mut calls = Vec::new();
        self.walk(&mut Vec::new(), &mut names, &mut calls);
        (names, calls)
    }

    fn walk(&self, bound: &mut Vec<String>, names: &mut Vec<String>, calls: &mut Vec<String>) {
        match self {
            Expr::Lit(_) => {}
            Expr::Name(n) => {
                if !bound.contains(n) && !names.contains(n) {
                    names.push(n.clone());
                }
            }
            Expr::List(v) => v.iter().for_each(|e| e.walk(bound, names, calls)),
            Expr::Call(f, a, k) => {
                if !calls.contains(f) {
                    calls.push(f.clone());
                }
                a.iter().for_each(|e| e.walk(bound, names, calls));
                k.iter().for_each(|(_, e)| e.walk(bound, names, calls));
            }
            Expr::Field(e, _) | Expr::Neg(e) | Expr::Not(e) => e.walk(bound, names, calls),
            Expr::Index(a, b) | Expr::Bin(_, a, b) => {
                a.walk(bound, names, calls);
                b.walk(bound, names, calls);
            }
            Expr::Comp { body, fors, cond } => {
                for (var, iter) in fors {
                    iter.walk(bound, names, calls);
                    bound.push(var.clone());
                }
                body.walk(bound, names, calls);
                if let Some(c) = cond {
                    c.walk(bound, names, calls);
                }
                for _ in fors {
                    bound.pop();
                }
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Str(String),
    Name(String),
    Sym(&'static str),
}

const SYMS: &[&str] = &[
    "==", "!=", "<=", ">=", "<", ">", "(", ")", "[", "]", ",", ".", "+", "-", "*", "/", "^", "=",
];

fn unit_factor(u: &str) -> Option<f64> {
    Some(match u {
        "s" => 1.0,
        "ms" => 1e-3,
        "us" => 1e-6,
        "ns" => 1e-9,
        "bps" => 1.0,
        "kbps" | "Kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        "%" => 0.01,
        _ => return None,
    })
}

fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let b: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '.' && i + 1 < b.len() && b[i + 1].is_ascii_digit()) {
            let s = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == '.' || b[i] == '_') {
                i += 1;
            }
            if i < b.len() && (b[i] == 'e' || b[i] == 'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == '+' || b[j] == '-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text: String = b[s..i].iter().filter(|c| **c != '_').collect();
            let mut x: f64 = text
                .parse()
                .map_err(|_| format!("\"{text}\" is not a number"))?;
            let us = i;
            if i < b.len() && b[i] == '%' {
                i += 1;
            } else {
                while i < b.len() && b[i].is_ascii_alphabetic() {
                    i += 1;
                }
            }
            if i > us {
                let unit: String = b[us..i].iter().collect();
                let f = unit_factor(&unit).ok_or_else(|| {
                    format!(
                        "unknown unit \"{unit}\" after {text}: use s, ms, us, ns, bps, kbps, Mbps, Gbps or %"
                    )
                })?;
                x *= f;
            }
            out.push(Tok::Num(x));
        } else if c.is_alphabetic() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(Tok::Name(b[s..i].iter().collect()));
        } else if c == '"' || c == '\'' {
            let s = i + 1;
            i += 1;
            while i < b.len() && b[i] != c {
                i += 1;
            }
            if i >= b.len() {
                return Err("a string is not closed".into());
            }
            out.push(Tok::Str(b[s..i].iter().collect()));
            i += 1;
        } else {
            let rest: String = b[i..b.len().min(i + 2)].iter().collect();
            match SYMS.iter().find(|s| rest.starts_with(**s)) {
                Some(s) => {
                    out.push(Tok::Sym(s));
                    i += s.len();
                }
                None => return Err(format!("unexpected character '{c}'")),
            }
        }
    }
    Ok(out)
}

/// Parses an expression.
pub fn parse(src: &str) -> Result<Expr, String> {
    let toks = lex(src)?;
    if toks.is_empty() {
        return Err("empty expression".into());
    }
    let mut p = Parser {
        t: toks,
        i: 0,
        depth: 0,
    };
    let e = p.or()?;
    if p.i < p.t.len() {
        return Err(format!(
            "unexpected {} after a complete expression",
            p.show()
        ));
    }
    Ok(e)
}

struct Parser {
    t: Vec<Tok>,
    i: usize,
    depth: usize,
}

/// Deepest nesting accepted (guards the recursive parser's stack).
const MAX_DEPTH: usize = 64;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn show(&self) -> String {
        match self.peek() {
            None => "the end".into(),
            Some(Tok::Num(x)) => format!("number {x}"),
            Some(Tok::Str(s)) => format!("string \"{s}\""),
            Some(Tok::Name(n)) => format!("\"{n}\""),
            Some(Tok::Sym(s)) => format!("\"{s}\""),
        }
    }
    fn sym(&mut self, s: &str) -> bool {
        if self.peek()
            == Some(&Tok::Sym(match SYMS.iter().find(|x| **x == s) {
                Some(x) => x,
                None => return false,
            }))
        {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn word(&mut self, w: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Name(n)) if n == w) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str) -> Result<(), String> {
        if self.sym(s) {
            Ok(())
        } else {
            Err(format!("expected \"{s}\", found {}", self.show()))
        }
    }
    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(format!("nested more than {MAX_DEPTH} deep"))
        } else {
            Ok(())
        }
    }
    fn or(&mut self) -> Result<Expr, String> {
        self.enter()?;
        let mut a = self.and()?;
        while self.word("or") {
            a = Expr::Bin(Op::Or, Box::new(a), Box::new(self.and()?));
        }
        self.depth -= 1;
        Ok(a)
    }
    fn and(&mut self) -> Result<Expr, String> {
        let mut a = self.not()?;
        while self.word("and") {
            a = Expr::Bin(Op::And, Box::new(a), Box::new(self.not()?));
        }
        Ok(a)
    }
    fn not(&mut self) -> Result<Expr, String> {
        if self.word("not") {
            self.enter()?;
            let e = self.not()?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(e)));
        }
        self.cmp()
    }
    fn cmp(&mut self) -> Result<Expr, String> {
        let a = self.sum()?;
        for (s, op) in [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ] {
            if self.sym(s) {
                return Ok(Expr::Bin(op, Box::new(a), Box::new(self.sum()?)));
            }
        }
        Ok(a)
    }
    fn sum(&mut self) -> Result<Expr, String> {
        let mut a = self.product()?;
        loop {
            if self.sym("+") {
                a = Expr::Bin(Op::Add, Box::new(a), Box::new(self.product()?));
            } else if self.sym("-") {
                a = Expr::Bin(Op::Sub, Box::new(a), Box::new(self.product()?));
            } else {
                return Ok(a);
            }
        }
    }
    fn product(&mut self) -> Result<Expr, String> {
        let mut a = self.unary()?;
        loop {
            if self.sym("*") {
                a = Expr::Bin(Op::Mul, Box::new(a), Box::new(self.unary()?));
            } else if self.sym("/") {
                a = Expr::Bin(Op::Div, Box::new(a), Box::new(self.unary()?));
            } else {
                return Ok(a);
            }
        }
    }
    fn unary(&mut self) -> Result<Expr, String> {
        if self.sym("-") {
            self.enter()?;
            let e = self.unary()?;
            self.depth -= 1;
            return Ok(Expr::Neg(Box::new(e)));
        }
        let a = self.postfix()?;
        if self.sym("^") {
            self.enter()?;
            let b = self.unary()?;
            self.depth -= 1;
            return Ok(Expr::Bin(Op::Pow, Box::new(a), Box::new(b)));
        }
        Ok(a)
    }
    fn postfix(&mut self) -> Result<Expr, String> {
        let mut a = self.atom()?;
        loop {
            if self.sym("[") {
                let i = self.or()?;
                self.expect("]")?;
                a = Expr::Index(Box::new(a), Box::new(i));
            } else if self.sym(".") {
                match self.peek().cloned() {
                    Some(Tok::Name(n)) => {
                        self.i += 1;
                        a = Expr::Field(Box::new(a), n);
                    }
                    _ => {
                        return Err(format!(
                            "expected a field name after \".\", found {}",
                            self.show()
                        ))
                    }
                }
            } else {
                return Ok(a);
            }
        }
    }
    fn atom(&mut self) -> Result<Expr, String> {
        match self.peek().cloned() {
            Some(Tok::Num(x)) => {
                self.i += 1;
                Ok(Expr::Lit(Value::Num(x)))
            }
            Some(Tok::Str(s)) => {
                self.i += 1;
                Ok(Expr::Lit(Value::Str(s)))
            }
            Some(Tok::Name(n)) => {
                self.i += 1;
                match n.as_str() {
                    "true" => return Ok(Expr::Lit(Value::Bool(true))),
                    "false" => return Ok(Expr::Lit(Value::Bool(false))),
                    "and" | "or" | "not" | "for" | "in" => {
                        return Err(format!("\"{n}\" cannot start an expression"))
                    }
                    _ => {}
                }
                if self.sym("(") {
                    let mut args = Vec::new();
                    let mut kw = Vec::new();
                    if !self.sym(")") {
                        loop {
                            let kwname = match (self.t.get(self.i), self.t.get(self.i + 1)) {
                                (Some(Tok::Name(k)), Some(Tok::Sym("="))) => Some(k.clone()),
                                _ => None,
                            };
                            if let Some(k) = kwname {
                                self.i += 2;
                                kw.push((k, self.or()?));
                            } else {
                                if !kw.is_empty() {
                                    return Err(format!(
                                        "in {n}(...): a plain argument after a named one"
                                    ));
                                }
                                args.push(self.or()?);
                            }
                            if self.sym(")") {
                                break;
                            }
                            self.expect(",")?;
                        }
                    }
                    Ok(Expr::Call(n, args, kw))
                } else {
                    Ok(Expr::Name(n))
                }
            }
            Some(Tok::Sym("(")) => {
                self.i += 1;
                let e = self.or()?;
                self.expect(")")?;
                Ok(e)
            }
            Some(Tok::Sym("[")) => {
                self.i += 1;
                if self.sym("]") {
                    return Ok(Expr::List(vec![]));
                }
                let first = self.or()?;
                if self.word("for") {
                    let mut fors = Vec::new();
                    loop {
                        let var = match self.peek().cloned() {
                            Some(Tok::Name(n)) => {
                                self.i += 1;
                                n
                            }
                            _ => {
                                return Err(format!(
                                    "expected a name after \"for\", found {}",
                                    self.show()
                                ))
                            }
                        };
                        if !self.word("in") {
                            return Err(format!("expected \"in\", found {}", self.show()));
                        }
                        fors.push((var, self.or()?));
                        if !self.word("for") {
                            break;
                        }
                    }
                    let cond = if self.word("if") {
                        Some(Box::new(self.or()?))
                    } else {
                        None
                    };
                    self.expect("]")?;
                    return Ok(Expr::Comp {
                        body: Box::new(first),
                        fors,
                        cond,
                    });
                }
                let mut v = vec![first];
                while self.sym(",") {
                    v.push(self.or()?);
                }
                self.expect("]")?;
                Ok(Expr::List(v))
            }
            _ => Err(format!("expected a value, found {}", self.show())),
        }
    }
}

/// What an expression can read: names and functions.
pub trait Env {
    /// The value of a name, if this environment knows it.
    fn name(&self, name: &str) -> Option<Result<Value, String>>;
    /// Calls a function; `None` if there is no such function.
    fn call(
        &self,
        name: &str,
        args: &[Value],
        kw: &[(String, Value)],
    ) -> Option<Result<Value, String>>;
}

/// Evaluates `e` in `env`.
pub fn eval(e: &Expr, env: &dyn Env) -> Result<Value, String> {
    Eval {
        env,
        locals: Vec::new(),
    }
    .eval(e)
}

struct Eval<'a> {
    env: &'a dyn Env,
    locals: Vec<(String, Value)>,
}

fn cmp_num(op: Op, a: f64, b: f64) -> bool {
    match op {
        Op::Eq => a == b,
        Op::Ne => a != b,
        Op::Lt => a < b,
        Op::Le => a <= b,
        Op::Gt => a > b,
        Op::Ge => a >= b,
        _ => unreachable!("comparison operator"),
    }
}

impl Eval<'_> {
    /// The elements of a comprehension: the first `for` binds its name to
    /// each element of its list in turn, the rest nest inside it.
    fn comp(
        &mut self,
        body: &Expr,
        fors: &[(String, Expr)],
        cond: Option<&Expr>,
        out: &mut Vec<Value>,
    ) -> Result<(), String> {
        let Some(((var, iter), rest)) = fors.split_first() else {
            let keep = match cond {
                Some(c) => self.eval(c)?.truth()?,
                None => true,
            };
            if keep {
                out.push(self.eval(body)?);
            }
            return Ok(());
        };
        let items = self.eval(iter)?;
        for it in items.list()? {
            if out.len() > 1_000_000 {
                return Err("a comprehension of more than a million elements".into());
            }
            self.locals.push((var.clone(), it.clone()));
            let r = self.comp(body, rest, cond, out);
            self.locals.pop();
            r?;
        }
        Ok(())
    }

    fn eval(&mut self, e: &Expr) -> Result<Value, String> {
        match e {
            Expr::Lit(v) => Ok(v.clone()),
            Expr::Name(n) => {
                if let Some((_, v)) = self.locals.iter().rev().find(|(k, _)| k == n) {
                    return Ok(v.clone());
                }
                match self.env.name(n) {
                    Some(r) => r,
                    None => Err(format!("unknown name \"{n}\"")),
                }
            }
            Expr::List(v) => Ok(Value::List(
                v.iter().map(|x| self.eval(x)).collect::<Result<_, _>>()?,
            )),
            Expr::Call(f, args, kw) if f == "if" && kw.is_empty() && args.len() == 3 => {
                if self.eval(&args[0])?.truth()? {
                    self.eval(&args[1])
                } else {
                    self.eval(&args[2])
                }
            }
            Expr::Call(f, args, kw) => {
                let a: Vec<Value> = args
                    .iter()
                    .map(|x| self.eval(x))
                    .collect::<Result<_, _>>()?;
                let k: Vec<(String, Value)> = kw
                    .iter()
                    .map(|(n, x)| Ok((n.clone(), self.eval(x)?)))
                    .collect::<Result<_, String>>()?;
                // Locals are visible to user functions through the
                // environment only by argument: they are not passed on.
                match self.env.call(f, &a, &k) {
                    Some(r) => r.map_err(|m| format!("{f}(): {m}")),
                    None => Err(format!("unknown function \"{f}\"")),
                }
            }
            Expr::Field(x, n) => self.eval(x)?.field(n),
            Expr::Index(x, i) => {
                let v = self.eval(x)?;
                let i = self.eval(i)?;
                match (&v, &i) {
                    (Value::Map(_), Value::Str(s)) => v.field(s),
                    (Value::List(l), _) => {
                        let k = i.num()?;
                        if k.fract() != 0.0 || k < 0.0 || k as usize >= l.len() {
                            return Err(format!(
                                "index {} is outside the list of {} (indices start at 0)",
                                fmt_num(k),
                                l.len()
                            ));
                        }
                        Ok(l[k as usize].clone())
                    }
                    _ => Err(format!("cannot index {} with {}", v.kind(), i.kind())),
                }
            }
            Expr::Neg(x) => Ok(Value::Num(-self.eval(x)?.num()?)),
            Expr::Not(x) => Ok(Value::Bool(!self.eval(x)?.truth()?)),
            Expr::Bin(Op::And, a, b) => Ok(Value::Bool(
                self.eval(a)?.truth()? && self.eval(b)?.truth()?,
            )),
            Expr::Bin(Op::Or, a, b) => Ok(Value::Bool(
                self.eval(a)?.truth()? || self.eval(b)?.truth()?,
            )),
            Expr::Bin(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                match op {
                    Op::Eq | Op::Ne => {
                        let same = match (&x, &y) {
                            (Value::Num(p), Value::Num(q)) => p == q,
                            _ => x == y,
                        };
                        Ok(Value::Bool(if *op == Op::Eq { same } else { !same }))
                    }
                    Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                        Ok(Value::Bool(cmp_num(*op, x.num()?, y.num()?)))
                    }
                    Op::Add if matches!(x, Value::Str(_)) || matches!(y, Value::Str(_)) => {
                        Ok(Value::Str(format!("{x}{y}")))
                    }
                    _ => {
                        let (p, q) = (x.num()?, y.num()?);
                        Ok(Value::Num(match op {
                            Op::Add => p + q,
                            Op::Sub => p - q,
                            Op::Mul => p * q,
                            Op::Div => p / q,
                            Op::Pow => p.powf(q),
                            _ => unreachable!("arithmetic operator"),
                        }))
                    }
                }
            }
            Expr::Comp { body, fors, cond } => {
                let mut out = Vec::new();
                self.comp(body, fors, cond.as_deref(), &mut out)?;
                Ok(Value::List(out))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Nothing;
    impl Env for Nothing {
        fn name(&self, n: &str) -> Option<Result<Value, String>> {
            (n == "x").then_some(Ok(Value::Num(3.0)))
        }
        fn call(
            &self,
            n: &str,
            a: &[Value],
            _: &[(String, Value)],
        ) -> Option<Result<Value, String>> {
            (n == "sum").then(|| a[0].nums().map(|v| Value::Num(v.iter().sum())))
        }
    }

    fn ev(s: &str) -> Result<Value, String> {
        eval(&parse(s)?, &Nothing)
    }

    #[test]
    fn arithmetic_units_and_precedence() {
        assert_eq!(ev("1 + 2 * 3").unwrap(), Value::Num(7.0));
        assert_eq!(ev("-2 ^ 2").unwrap(), Value::Num(-4.0));
        assert_eq!(ev("20ms + 1s").unwrap(), Value::Num(1.02));
        assert_eq!(ev("5%").unwrap(), Value::Num(0.05));
        assert_eq!(ev("100Mbps / 8").unwrap(), Value::Num(12.5e6));
        assert_eq!(ev("x > 2 and not x > 4").unwrap(), Value::Bool(true));
        assert_eq!(ev("'x = ' + x").unwrap(), Value::Str("x = 3".into()));
        // Rounding noise is hidden, small numbers are not.
        assert_eq!(fmt_num(30e9 * 1e-9), "30");
        assert_eq!(fmt_num(1e-9), "1.000e-9");
    }

    #[test]
    fn comprehension_if_and_index() {
        assert_eq!(
            ev("sum([k * x for k in [1, 2, 3] if k != 2])").unwrap(),
            Value::Num(12.0)
        );
        assert_eq!(ev("[1, 2, 3][2]").unwrap(), Value::Num(3.0));
        assert_eq!(
            ev("[a * 10 + b for a in [1, 2] for b in [3, 4] if a + b != 5]").unwrap(),
            Value::List(vec![Value::Num(13.0), Value::Num(24.0)])
        );
        // The branch not taken is not evaluated.
        assert_eq!(ev("if(x > 1, 1, nosuch)").unwrap(), Value::Num(1.0));
    }

    #[test]
    fn errors_are_messages() {
        assert!(ev("1 +").unwrap_err().contains("expected a value"));
        assert!(ev("[1, 2][5]").unwrap_err().contains("outside the list"));
        assert!(ev("nosuch(1)").unwrap_err().contains("unknown function"));
        assert!(ev("3furlongs").unwrap_err().contains("unknown unit"));
        assert!(ev("'open").unwrap_err().contains("not closed"));
        for deep in [
            "(".repeat(200) + "1" + &")".repeat(200),
            "-".repeat(100_000) + "1",
            "2^".repeat(100_000) + "1",
            "not ".repeat(100_000) + "true",
        ] {
            assert!(ev(&deep).unwrap_err().contains("nested"), "{}", &deep[..8]);
        }
    }

    #[test]
    fn free_names_skip_bound_variables() {
        let (names, calls) = parse("sum([k * x for k in ks])").unwrap().free_names();
        assert_eq!(names, vec!["ks", "x"]);
        assert_eq!(calls, vec!["sum"]);
    }
}
