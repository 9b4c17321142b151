//! A conversion's arrays on disk while it runs, so that its memory does not grow with the trace
//! ([`super::convert::Converter::spilling`]).

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::binary::{encode_header, encode_trims};
use super::convert::{io_err, Reads, TraceMeta, Trims};
use crate::error::Result;

/// Page writes held in memory by a spilling conversion before they are written out (8 Mi: 32 MiB
/// of page ids, with their requests and times).
pub const SPILL_PAGES: usize = 1 << 23;

/// The arrays of a spilling conversion, on disk: page ids, request sizes, times and request
/// volumes, the reads as read, then the reads' arrays once resolved, each in a file of its own
/// beside the output, appended to as the conversion goes.
pub(super) struct Spill {
    paths: [PathBuf; 11],
    files: Vec<BufWriter<File>>,
    /// Page writes (or reads) held in memory before they are written out.
    pub(super) every: usize,
    /// Items written to each file.
    pub(super) counts: [u64; 11],
}

impl Spill {
    const NAMES: [&'static str; 11] = [
        "pages",
        "requests",
        "times",
        "volumes",
        "raw-reads",
        "read-at",
        "read-runs",
        "read-first",
        "read-pages",
        "read-times",
        "read-volumes",
    ];
    /// The file of the reads as read (records of 32 bytes).
    pub(super) const RAW_READS: usize = 4;
    /// The first of the files of the reads' arrays, in the order of the layout.
    const READS: usize = 5;

    pub(super) fn create(out: &Path) -> Result<Self> {
        let paths = Self::NAMES.map(|n| {
            let mut name = out.file_name().unwrap_or_default().to_os_string();
            name.push(format!(".part-{n}"));
            out.with_file_name(name)
        });
        let files = paths
            .iter()
            .map(|p| {
                File::create(p)
                    .map(|f| BufWriter::with_capacity(1 << 20, f))
                    .map_err(|e| io_err(p, &e))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Spill {
            paths,
            files,
            every: SPILL_PAGES,
            counts: [0; 11],
        })
    }

    /// The path of file `k`.
    pub(super) fn path(&self, k: usize) -> &Path {
        &self.paths[k]
    }

    /// File `k`, flushed, open for reading from its start.
    pub(super) fn open(&mut self, k: usize) -> Result<std::io::BufReader<File>> {
        self.files[k]
            .flush()
            .map_err(|e| io_err(&self.paths[k], &e))?;
        File::open(&self.paths[k])
            .map(|f| std::io::BufReader::with_capacity(1 << 20, f))
            .map_err(|e| io_err(&self.paths[k], &e))
    }

    /// Appends resolved reads to the files of their arrays: the runs of every read (copied to
    /// the output only if some read has several), and every read's time and volume (copied only
    /// if the header says the reads have them).
    pub(super) fn append_reads(&mut self, r: &Reads) -> Result<()> {
        let k = Self::READS;
        self.append(k, r.at.iter().map(|a| a.to_le_bytes()))?;
        self.append(
            k + 1,
            (0..r.len()).map(|i| (r.runs_of(i) as u32).to_le_bytes()),
        )?;
        self.append(k + 2, r.first.iter().map(|f| f.to_le_bytes()))?;
        self.append(k + 3, r.pages.iter().map(|n| n.to_le_bytes()))?;
        self.append(k + 4, r.times.iter().map(|t| t.to_le_bytes()))?;
        self.append(k + 5, r.volumes.iter().map(|v| v.to_le_bytes()))
    }

    pub(super) fn append<const N: usize>(
        &mut self,
        k: usize,
        items: impl Iterator<Item = [u8; N]>,
    ) -> Result<()> {
        for b in items {
            self.files[k]
                .write_all(&b)
                .map_err(|e| io_err(&self.paths[k], &e))?;
            self.counts[k] += 1;
        }
        Ok(())
    }

    /// Writes the converted trace to `out`: `meta`, then each array from its file, the pages
    /// moved to their volumes' ranges on the way, then `trims`, then the reads' arrays from their
    /// files ([`Spill::append_reads`]).
    pub(super) fn assemble(
        &mut self,
        meta: &TraceMeta,
        trims: &Trims,
        has_times: bool,
        out: &Path,
        check_stop: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()> {
        for (f, p) in self.files.iter_mut().zip(&self.paths) {
            f.flush().map_err(|e| io_err(p, &e))?;
        }
        let open = |k: usize| {
            File::open(&self.paths[k])
                .map(|f| std::io::BufReader::with_capacity(1 << 20, f))
                .map_err(|e| io_err(&self.paths[k], &e))
        };
        let f = File::create(out).map_err(|e| io_err(out, &e))?;
        let mut w = BufWriter::with_capacity(1 << 20, f);
        let werr = |e: std::io::Error| io_err(out, &e);
        encode_header(meta, &mut w).map_err(werr)?;
        let several = meta.volumes.len() > 1;
        if several && meta.volumes.iter().any(|v| v.first_page > 0) {
            // Each request's pages moved by its volume's first page.
            let (mut pages, mut sizes, mut vols) = (open(0)?, open(1)?, open(3)?);
            let mut b4 = [0u8; 4];
            for k in 0..self.counts[1] {
                if k.is_multiple_of(1 << 16) {
                    check_stop()?;
                }
                sizes
                    .read_exact(&mut b4)
                    .map_err(|e| io_err(&self.paths[1], &e))?;
                let n = u32::from_le_bytes(b4);
                vols.read_exact(&mut b4)
                    .map_err(|e| io_err(&self.paths[3], &e))?;
                let first = meta.volumes[u32::from_le_bytes(b4) as usize].first_page as u32;
                for _ in 0..n {
                    pages
                        .read_exact(&mut b4)
                        .map_err(|e| io_err(&self.paths[0], &e))?;
                    w.write_all(&(u32::from_le_bytes(b4) + first).to_le_bytes())
                        .map_err(werr)?;
                }
            }
        } else {
            check_stop()?;
            std::io::copy(&mut open(0)?, &mut w).map_err(werr)?;
        }
        std::io::copy(&mut open(1)?, &mut w).map_err(werr)?;
        if has_times {
            std::io::copy(&mut open(2)?, &mut w).map_err(werr)?;
        }
        if several {
            std::io::copy(&mut open(3)?, &mut w).map_err(werr)?;
        }
        encode_trims(trims, &mut w).map_err(werr)?;
        let k = Self::READS;
        let stored = [
            true,
            meta.read_runs > meta.reads,
            true,
            true,
            meta.read_times,
            several,
        ];
        for (i, keep) in stored.into_iter().enumerate() {
            if keep {
                check_stop()?;
                std::io::copy(&mut open(k + i)?, &mut w).map_err(werr)?;
            }
        }
        w.flush().map_err(werr)
    }
}

impl Drop for Spill {
    /// The spill files go with the conversion, finished or failed.
    fn drop(&mut self) {
        self.files.clear();
        for p in &self.paths {
            let _ = std::fs::remove_file(p);
        }
    }
}
