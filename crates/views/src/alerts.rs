//! Alerts in words: `watch`'s event lines and the live view's active alerts. The expression and
//! the field names (`process.memory > 8GiB`) stay as the user wrote them; `watch --json` and
//! `--exec`'s variables are the machine forms, the same in every language.

use gpuledger_compare::alert::{Event, State, Subject};
use gpuledger_lang::Lang;
use gpuledger_model::units::human_bytes;

/// What an alert is about: `llama-server (pid 10) on GPU0 NVIDIA H200`, or the device.
pub fn subject_text(s: &Subject, lang: Lang) -> String {
    let dev = match &s.device_name {
        Some(n) => format!("GPU{} {n}", s.device_index),
        None => format!("GPU{}", s.device_index),
    };
    let text = match s.pid {
        Some(pid) => {
            let name = s.process_name.as_deref();
            let args = [
                (
                    "name",
                    name.unwrap_or(gpuledger_model::words::UNKNOWN).into(),
                ),
                ("pid", pid.to_string().into()),
                ("device", dev.into()),
            ];
            lang.t_args("report-alert-subject-process", &args)
        }
        None => dev,
    };
    // Process and device names come from outside.
    gpuledger_model::term_safe(&text).into_owned()
}

/// One event as a line: time, state, the alert, what it is about, the values that made it fire.
pub fn event_line(ev: &Event, lang: Lang) -> String {
    let state = match ev.state {
        State::Firing => lang.t("report-alert-firing"),
        State::Resolved => lang.t("report-alert-resolved"),
    };
    let mut s = format!(
        "{} {state} {} · {}",
        gpuledger_model::time::format_ms(ev.at_ms),
        ev.alert,
        subject_text(&ev.subject, lang)
    );
    for o in &ev.observed {
        let v = if o.field.contains("memory") {
            let bytes = human_bytes(o.value as u64);
            match o.percent_of_total {
                Some(p) => {
                    let args = [
                        ("value", bytes.into()),
                        ("percent", format!("{p:.1}").into()),
                    ];
                    lang.t_args("report-alert-of-total", &args)
                }
                None => bytes,
            }
        } else if o.field == "device.temperature" {
            format!("{} °C", o.value)
        } else if o.field == "device.power" {
            format!("{:.1} W", o.value)
        } else {
            format!("{}%", o.value)
        };
        s.push_str(&format!(" · {} = {v}", o.field));
    }
    if let Some(n) = &ev.note {
        s.push_str(&format!(" · {}", n.in_lang(lang)));
    }
    // Process and device names come from outside.
    gpuledger_model::term_safe(&s).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_compare::alert::Observed;
    use gpuledger_lang::Said;

    fn event(state: State, note: Option<Said>) -> Event {
        Event {
            state,
            at_ms: 1000,
            alert: "process.memory > 8GiB".into(),
            subject: Subject {
                device_uuid: "GPU-1".into(),
                device_index: 0,
                device_name: Some("NVIDIA H200".into()),
                pid: Some(10),
                start_time: Some(1),
                process_name: Some("通义千问\x1b[2J".into()),
            },
            observed: vec![Observed {
                field: "process.memory",
                value: (9u64 << 30) as f64,
                percent_of_total: Some(9.0),
            }],
            note,
        }
    }

    #[test]
    fn an_event_line_in_english_and_in_chinese() {
        let at = gpuledger_model::time::format_ms(1000);
        let ev = event(State::Firing, None);
        assert_eq!(
            event_line(&ev, Lang::En),
            format!("{at} FIRING process.memory > 8GiB · 通义千问\\u001b[2J (pid 10) on GPU0 NVIDIA H200 · process.memory = 9 GiB (9.0% of total)")
        );
        assert_eq!(
            event_line(&ev, Lang::ZhCn),
            format!("{at} 触发 process.memory > 8GiB · GPU0 NVIDIA H200 上的 通义千问\\u001b[2J（PID 10） · process.memory = 9 GiB（占总量 9.0%）")
        );
        let gone = event(
            State::Resolved,
            Some(Said::new("report-alert-gone", vec![])),
        );
        let zh = event_line(&gone, Lang::ZhTw);
        assert!(zh.contains(" 解除 ") && zh.ends_with(" · 已不存在"), "{zh}");
        assert!(event_line(&gone, Lang::En).ends_with(" · no longer present"));
    }
}
