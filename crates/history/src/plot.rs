//! `gpuledger plot`'s data: a recording read into buckets by [`gather()`]; the chart is drawn
//! by `gpuledger_views::plot`. A long recording is reduced to at most `columns` time buckets. Within each bucket the sample
//! where the device used the most memory stands for the bucket (so peaks survive, and the stack
//! always adds up to the device line of the same sample); GPU % is the bucket's mean.

mod gather;

pub use gather::gather;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Query, Reader};
    use gpuledger_lang::Lang;
    use gpuledger_views::plot::render_svg;

    fn recording() -> (tempfile::TempDir, std::path::PathBuf) {
        use crate::store::Recorder;
        use gpuledger_model::test_support::{device, process, snapshot, GIB};
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.db");
        let mut rec = Recorder::open(&db).unwrap();
        // 10 minutes at 1 s: llama grows 10 → 30 GiB, a <weird> & process holds 5 GiB, two
        // small ones; the device total is 80 GiB and used peaks at 60 GiB.
        for k in 0..600u64 {
            let used = 20 * GIB + k * 40 * GIB / 599;
            let mut d = device(0, "GPU-1", Some(80 * GIB), Some(used));
            d.name = Some("NVIDIA H100".into());
            d.utilization.gpu_percent = Some((k % 100) as u32);
            let procs = [
                (1, "llama-server", 10 * GIB + k * 20 * GIB / 599),
                (2, "<weird> &", 5 * GIB),
                (3, "a", GIB),
                (4, "b", GIB / 2),
            ]
            .map(|(pid, name, mem)| {
                let mut p = process(pid, "GPU-1", Some(mem));
                p.start_time = Some(1);
                p.name = Some(name.into());
                p
            });
            let s = snapshot("t", vec![d], procs.into());
            rec.add(&s, 1_795_939_200_000 + k as i64 * 1000);
        }
        rec.flush().unwrap();
        (dir, db)
    }

    #[test]
    fn svg_is_valid_and_its_axes_cover_the_data() {
        let (_d, db) = recording();
        let reader = Reader::open(&db).unwrap();
        let plots = gather(&reader, &Query::default(), 200, 2).unwrap();
        assert_eq!(plots.len(), 1);
        let p = &plots[0];
        assert_eq!(p.times.len(), 200);
        // Buckets of 3 samples: the representative is the peak (the last of each bucket).
        assert_eq!(p.times[0], 1_795_939_200_000 + 2000);
        assert_eq!(*p.times.last().unwrap(), 1_795_939_200_000 + 599_000);
        assert_eq!(
            p.processes.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
            ["llama-server (1)", "<weird> & (2)"]
        );
        assert_eq!(p.others[0], (1u64 << 30) + (1 << 29));
        let svg = render_svg(&plots, "GPU memory · test", Lang::En);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(
            root.tag_name().namespace(),
            Some("http://www.w3.org/2000/svg")
        );
        let g = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("panel"))
            .unwrap();
        let num = |n: roxmltree::Node, a: &str| n.attribute(a).unwrap().parse::<f64>().unwrap();
        assert_eq!(num(g, "data-x-min") as i64, p.times[0]);
        assert_eq!(num(g, "data-x-max") as i64, *p.times.last().unwrap());
        let ymax = num(g, "data-y-max");
        assert!(ymax >= (80u64 << 30) as f64, "{ymax}");
        assert_eq!(ymax, (80u64 << 30) as f64); // 80 GiB total, ticks every 20 GiB
        let (l, r, t, b) = (
            num(g, "data-plot-left"),
            num(g, "data-plot-right"),
            num(g, "data-plot-top"),
            num(g, "data-plot-bottom"),
        );
        // Every plotted point lies inside the axes.
        let mut points = 0;
        for n in doc.descendants().filter(|n| n.has_tag_name("polyline")) {
            for pt in n.attribute("points").unwrap().split_whitespace() {
                let (px, py) = pt.split_once(',').unwrap();
                let (px, py): (f64, f64) = (px.parse().unwrap(), py.parse().unwrap());
                assert!(
                    px >= l - 0.05 && px <= r + 0.05 && py >= t - 0.05 && py <= b + 0.05,
                    "{pt} outside"
                );
                points += 1;
            }
        }
        assert_eq!(points, 400); // used + GPU %, 200 buckets each
                                 // The used line starts at the first bucket's value.
        let used = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("used"))
            .unwrap();
        let first = used
            .attribute("points")
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        let used0 = p.used[0].unwrap() as f64;
        assert_eq!(first, format!("{:.1},{:.1}", l, b - used0 / ymax * (b - t)));
        // X ticks fall inside the data range; the y ticks run 0 → the axis maximum.
        let xt: Vec<f64> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("x-tick"))
            .map(|n| num(n, "data-value"))
            .collect();
        assert!(xt.len() >= 2);
        assert!(xt
            .iter()
            .all(|v| *v >= p.times[0] as f64 && *v <= *p.times.last().unwrap() as f64));
        let yt: Vec<f64> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("y-tick"))
            .map(|n| num(n, "data-value"))
            .collect();
        assert_eq!(yt.first(), Some(&0.0));
        assert_eq!(yt.last(), Some(&ymax));
        let labels: Vec<&str> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("stack"))
            .map(|n| n.attribute("data-label").unwrap())
            .collect();
        assert_eq!(
            labels,
            [
                "llama-server (1)",
                "<weird> & (2)",
                "other processes",
                "unattributed (driver/system/other users)"
            ]
        );
    }
}
