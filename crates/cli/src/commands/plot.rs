//! `gpuledger plot`: a recording as an SVG chart, or the same chart rasterised to PNG (resvg, with
//! the system's fonts for the text).

use crate::failed;
use crate::Global;
use anyhow::Context;
use gpuledger_history::plot::gather;
use gpuledger_history::store::Query;
use gpuledger_lang::Lang;
use gpuledger_model::time::format_ms;
use gpuledger_views::columns::display_width;
use gpuledger_views::plot::render_svg;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub range: crate::flags::Range,
    /// Only this device: its index (as `snapshot` numbers them) or its UUID.
    #[arg(long, value_name = "INDEX|UUID")]
    pub device: Option<String>,
    /// How many processes to stack by name; the rest are summed as "other processes".
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Output file: `.svg`, or `.png` (the same chart rasterised; its text needs a font installed,
    /// e.g. Debian's fonts-dejavu-core).
    #[arg(long, value_name = "FILE.svg|FILE.png", value_parser = out_file)]
    pub out: PathBuf,
}

/// Whether the chart is rasterised: from the output file's extension, `None` for another one.
fn is_png(out: &std::path::Path) -> Option<bool> {
    match out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => Some(false),
        Some("png") => Some(true),
        _ => None,
    }
}

/// `--out` is checked when the command line is parsed: another extension is a usage error
/// (exit 2), said before any recording is opened.
fn out_file(s: &str) -> Result<PathBuf, gpuledger_lang::said::Said> {
    let p = PathBuf::from(s);
    match is_png(&p) {
        Some(_) => Ok(p),
        None => Err(gpuledger_lang::said::Said::new(
            "cli-err-plot-extension",
            vec![],
        )),
    }
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    let png = is_png(&args.out) == Some(true);
    let (reader, range) = args.range.open(global)?;
    let q = Query {
        device: args.device.clone(),
        ..range
    };
    let plots = gather(&reader, &q, 1000, args.top)?;
    let title = match plots
        .iter()
        .filter_map(|p| p.times.first().zip(p.times.last()))
        .next()
    {
        Some((a, b)) => global.lang.t_args(
            "cli-plot-title-range",
            &[("from", format_ms(*a).into()), ("to", format_ms(*b).into())],
        ),
        None => global.lang.t("cli-plot-title"),
    };
    let svg = render_svg(&plots, &title, global.lang);
    let bytes = if png {
        rasterise(&svg, global.lang).map_err(|e| {
            let said = vec![
                ("path", failed::path(&args.out)),
                ("error", failed::cause(&e)),
            ];
            failed::failed("cli-err-plot-png", said)
        })?
    } else {
        svg.into_bytes()
    };
    std::fs::write(&args.out, bytes).map_err(|e| failed::cannot_write(&args.out, &e))?;
    let key = if plots.is_empty() {
        "cli-plot-wrote-empty"
    } else {
        "cli-plot-wrote"
    };
    let said = [
        ("path", args.out.display().to_string().into()),
        ("devices", (plots.len() as i64).into()),
    ];
    eprintln!("{}", global.lang.t_args(key, &said));
    Ok(ExitCode::SUCCESS)
}

/// Sans faces that draw Han characters (and Latin), for a chart with any: the face for the
/// reader's script first. Without one, each line with a Han character fell back whole to the
/// first face that had the glyph, often a serif one.
fn cjk_sans(lang: Lang) -> [&'static str; 4] {
    match lang {
        Lang::ZhTw => [
            "Noto Sans CJK TC",
            "Source Han Sans TC",
            "Noto Sans CJK SC",
            "WenQuanYi Zen Hei",
        ],
        _ => [
            "Noto Sans CJK SC",
            "Source Han Sans SC",
            "Noto Sans CJK TC",
            "WenQuanYi Zen Hei",
        ],
    }
}

/// The SVG chart as PNG pixels at its own size. The text is drawn with the system's fonts; with
/// none installed the chart would lose every label, so that is refused with what to install.
fn rasterise(svg: &str, lang: Lang) -> anyhow::Result<Vec<u8>> {
    let mut opt = resvg::usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    // The chart asks for `sans-serif`, which fontdb maps to Arial by default: name a sans face
    // that is installed instead, or no label would be drawn.
    let families: Vec<String> = db
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
        .collect();
    let wide = svg
        .chars()
        .any(|c| display_width(c.encode_utf8(&mut [0; 4])) == 2);
    let cjk = if wide {
        cjk_sans(lang).to_vec()
    } else {
        vec![]
    };
    let latin = [
        "DejaVu Sans",
        "Liberation Sans",
        "Noto Sans",
        "Arial",
        "Helvetica",
    ];
    let sans = cjk
        .into_iter()
        .chain(latin)
        .find(|want| families.iter().any(|f| f == want))
        .map(str::to_string)
        .or_else(|| families.first().cloned());
    let Some(sans) = sans else {
        return Err(failed::failed("cli-err-plot-no-font", vec![]));
    };
    db.set_sans_serif_family(sans);
    let tree = resvg::usvg::Tree::from_str(svg, &opt).context("the chart is not valid SVG")?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .context("the chart has no area")?;
    // An opaque white page: a transparent background reads badly in most image viewers.
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().context("PNG encoding failed")
}
