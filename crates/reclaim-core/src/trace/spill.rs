//! A conversion's arrays on disk while it runs, so that its memory does not grow with the trace
//! ([`super::convert::Converter::spilling`]).

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::binary::{encode_header, encode_reads, encode_trims};
use super::convert::{io_err, Reads, TraceMeta, Trims};
use crate::error::Result;

/// Page writes held in memory by a spilling conversion before they are written out (8 Mi: 32 MiB
/// of page ids, with their requests and times).
pub const SPILL_PAGES: usize = 1 << 23;

/// The arrays of a spilling conversion, on disk: page ids, request sizes, times and request
/// volumes, each in a file of its own beside the output, appended to as the conversion goes.
pub(super) struct Spill {
    paths: [PathBuf; 4],
    files: Vec<BufWriter<File>>,
    /// Page writes held in memory before they are written out.
    pub(super) every: usize,
    /// Items written to each file.
    pub(super) counts: [u64; 4],
}

impl Spill {
    const NAMES: [&'static str; 4] = ["pages", "requests", "times", "volumes"];

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
            counts: [0; 4],
        })
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
    /// moved to their volumes' ranges on the way, then `trims` and `reads`.
    pub(super) fn assemble(
        &mut self,
        meta: &TraceMeta,
        trims: &Trims,
        reads: &Reads,
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
        encode_reads(reads, &mut w).map_err(werr)?;
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
