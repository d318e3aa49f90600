//! The five source documents, named as a reader knows them: by author and title.

use serde::Serialize;

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Document {
    /// Authors as the document names them ("" where it names none).
    pub authors: &'static str,
    pub title: &'static str,
    /// What it is and what it measured, in a few words.
    pub about: &'static str,
}

impl Document {
    /// "Authors: Title", or the title alone when the document names no author.
    pub fn cite(&self) -> String {
        if self.authors.is_empty() {
            self.title.to_string()
        } else {
            format!("{}: {}", self.authors, self.title)
        }
    }
}

pub const TICKLESS: Document = Document {
    authors: "Suutari",
    title: "Tickless scheduling latency",
    about: "pico]OS on an STM32F411 (EMW3165), logic-analyzer timings of tickless idle",
};

pub const FREERTOS: Document = Document {
    authors: "Miranda, de Oliveira, Carminati",
    title: "Analysis of FreeRTOS Overheads on Periodic Tasks",
    about: "paper, FreeRTOS 10.2.1 on a Cortex-M4 (NUCLEO-F446RE) at 84 MHz",
};

pub const WAKEUP: Document = Document {
    authors: "",
    title: "Wakeup Latency, CPU Frequency (Gotcha)",
    about: "slides, a Python sleep loop on a Raspberry Pi 4 (author not named)",
};

pub const KERNELPERF: Document = Document {
    authors: "",
    title: "KernelPerf (kernel-v1 performance)",
    about: "test program and notes, Oberon kernel-v1 on an RP2040-class MCU (author not named)",
};

pub const K4PERF: Document = Document {
    authors: "",
    title: "K4perf (kernel-v4 performance)",
    about: "test program and notes, Oberon kernel-v4 on an RP2350 at 125 MHz, 4 September 2025 (author not named)",
};
