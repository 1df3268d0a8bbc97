//! Reading a recording into chart data: at most `columns` time buckets per device, each stood
//! for by its peak-memory sample, with the top processes' memory at those samples.

use crate::store::{Query, Reader, StoreError};
use gpuledger_views::plot::{DevicePlot, Labelled};
use std::collections::HashMap;

/// One device's rows as read in pass 1 of [`gather`]: time, memory used, GPU %.
struct Dev {
    id: u32,
    label: String,
    uuid: String,
    total: Option<u64>,
    rows: Vec<(i64, Option<u64>, Option<u32>)>,
}

/// Read the recording and bucket it for plotting.
pub fn gather(
    reader: &Reader,
    q: &Query,
    columns: usize,
    top: usize,
) -> Result<Vec<DevicePlot>, StoreError> {
    let columns = columns.clamp(10, 4000);
    // Pass 1: device rows, to find the time span and each bucket's peak sample.
    let (devs, index) = device_rows(reader, q)?;
    let (Some(t0), Some(t1)) = (
        devs.iter()
            .filter_map(|d| d.rows.first())
            .map(|r| r.0)
            .min(),
        devs.iter().filter_map(|d| d.rows.last()).map(|r| r.0).max(),
    ) else {
        return Ok(Vec::new());
    };
    let span = (t1 - t0).max(1);
    let bucket_of = |ts: i64| {
        (((ts - t0) as i128 * columns as i128 / (span as i128 + 1)) as usize).min(columns - 1)
    };

    // Per device: buckets in use, their representative sample time, used and mean GPU %.
    let mut plots = Vec::new();
    let mut pick: HashMap<(u32, i64), usize> = HashMap::new(); // (device id, ts) → bucket slot
    for d in &devs {
        let p = bucket_device(d, columns, &bucket_of);
        for (slot, ts) in p.times.iter().enumerate() {
            pick.insert((d.id, *ts), slot);
        }
        plots.push(p);
    }

    // Pass 2: process rows at the representative samples only.
    let per_proc = process_rows(reader, q, &pick, &index, &plots)?;
    keep_top(&mut plots, per_proc, top);
    Ok(plots)
}

/// Pass 1: every device's rows, and each device's place in the list by id.
fn device_rows(reader: &Reader, q: &Query) -> Result<(Vec<Dev>, HashMap<u32, usize>), StoreError> {
    let mut devs: Vec<Dev> = Vec::new();
    let mut index: HashMap<u32, usize> = HashMap::new();
    reader.for_each_device_row(q, |r| {
        let i = *index.entry(r.device.id).or_insert_with(|| {
            devs.push(Dev {
                id: r.device.id,
                label: match &r.device.name {
                    Some(n) => format!("GPU{} {n}", r.device.index),
                    None => format!("GPU{}", r.device.index),
                },
                uuid: r.device.uuid.clone(),
                total: r.device.total_bytes,
                rows: Vec::new(),
            });
            devs.len() - 1
        });
        devs[i].rows.push((r.ts_ms, r.vals.used, r.vals.gpu));
    })?;
    Ok((devs, index))
}

/// One device's buckets: the peak-memory sample of each stands for it, GPU % is its mean.
fn bucket_device(d: &Dev, columns: usize, bucket_of: &impl Fn(i64) -> usize) -> DevicePlot {
    let mut best: Vec<Option<(i64, Option<u64>)>> = vec![None; columns];
    let mut gpu: Vec<(f64, u32)> = vec![(0.0, 0); columns];
    for &(ts, used, g) in &d.rows {
        let b = bucket_of(ts);
        let better = match best[b] {
            None => true,
            Some((_, cur)) => used.unwrap_or(0) > cur.unwrap_or(0),
        };
        if better {
            best[b] = Some((ts, used));
        }
        if let Some(g) = g {
            gpu[b].0 += g as f64;
            gpu[b].1 += 1;
        }
    }
    let mut p = DevicePlot {
        label: d.label.clone(),
        uuid: d.uuid.clone(),
        total_bytes: d.total,
        times: Vec::new(),
        used: Vec::new(),
        gpu_percent: Vec::new(),
        processes: Vec::new(),
        others: Vec::new(),
    };
    for (b, slot) in best.iter().enumerate() {
        if let Some((ts, used)) = slot {
            p.times.push(*ts);
            p.used.push(*used);
            p.gpu_percent
                .push((gpu[b].1 > 0).then(|| gpu[b].0 / gpu[b].1 as f64));
        }
    }
    p
}

/// Pass 2: each process's memory at its device's representative samples, by (device place,
/// process id).
fn process_rows(
    reader: &Reader,
    q: &Query,
    pick: &HashMap<(u32, i64), usize>,
    index: &HashMap<u32, usize>,
    plots: &[DevicePlot],
) -> Result<HashMap<(usize, u32), Labelled>, StoreError> {
    let mut per_proc: HashMap<(usize, u32), Labelled> = HashMap::new();
    reader.for_each_process_row(q, |r| {
        let Some(&slot) = pick.get(&(r.device.id, r.ts_ms)) else {
            return;
        };
        let Some(&di) = index.get(&r.device.id) else {
            return;
        };
        let n = plots[di].times.len();
        let e = per_proc.entry((di, r.process.id)).or_insert_with(|| {
            (
                format!(
                    "{} ({})",
                    r.process
                        .name
                        .as_deref()
                        .unwrap_or(gpuledger_model::words::UNKNOWN),
                    r.process.pid
                ),
                vec![None; n],
            )
        });
        e.1[slot] = r.vals.memory_bytes;
    })?;
    Ok(per_proc)
}

/// Per device, the `top` processes by peak memory are shown; the rest are summed as others.
fn keep_top(plots: &mut [DevicePlot], per_proc: HashMap<(usize, u32), Labelled>, top: usize) {
    let mut by_dev: Vec<Vec<Labelled>> = vec![Vec::new(); plots.len()];
    for ((di, _), v) in per_proc {
        by_dev[di].push(v);
    }
    for (p, mut procs) in plots.iter_mut().zip(by_dev) {
        let peak = |v: &Vec<Option<u64>>| v.iter().flatten().copied().max().unwrap_or(0);
        procs.sort_by(|a, b| peak(&b.1).cmp(&peak(&a.1)).then(a.0.cmp(&b.0)));
        let rest = procs.split_off(top.min(procs.len()));
        p.others = (0..p.times.len())
            .map(|i| rest.iter().filter_map(|(_, v)| v[i]).sum())
            .collect();
        p.processes = procs;
    }
}
