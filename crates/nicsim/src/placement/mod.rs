//! A placement is data: which processor runs each group of stages on a node, where the NIC's
//! interrupt goes and how, and how the NIC hands received frames to the host (host-path §5).
//! No model branches on a placement's name; `Roles` is all the node consults.

use crate::config::{IrqPath, Placement, ProcName, RxMode, TxOutput};

/// A placement resolved to processor indices of one node.
#[derive(Clone, Copy, Debug)]
pub struct Roles {
    pub driver: usize,
    pub protocol: usize,
    pub comm: usize,
    pub app: usize,
    pub irq_target: usize,
    pub irq_path: IrqPath,
    pub rx_mode: RxMode,
    pub tx_output: TxOutput,
}

/// Processor names of a node, in index order.
pub fn processor_names(host_cpus: usize, nic_cpu: bool) -> Vec<&'static str> {
    const HOST: [&str; 2] = ["cpu0", "cpu1"];
    let mut v: Vec<&'static str> = HOST[..host_cpus.min(2)].to_vec();
    if nic_cpu {
        v.push("nic_cpu");
    }
    v
}

fn index_of(names: &[&'static str], p: ProcName, role: &str) -> Result<usize, String> {
    let want = match p {
        ProcName::Cpu0 => "cpu0",
        ProcName::Cpu1 => "cpu1",
        ProcName::NicCpu => "nic_cpu",
    };
    names.iter().position(|n| *n == want).ok_or_else(|| {
        format!(
            "placement.{role}: processor {want} does not exist on this node (it has {})",
            names.join(", ")
        )
    })
}

impl Roles {
    pub fn resolve(p: &Placement, names: &[&'static str]) -> Result<Roles, String> {
        let r = Roles {
            driver: index_of(names, p.driver, "driver")?,
            protocol: index_of(names, p.protocol, "protocol")?,
            comm: index_of(names, p.comm_thread, "comm_thread")?,
            app: index_of(names, p.app, "app")?,
            irq_target: index_of(names, p.irq_target, "irq_target")?,
            irq_path: p.irq_path,
            rx_mode: p.rx_mode,
            tx_output: p.tx_output,
        };
        let nic = names.iter().position(|n| *n == "nic_cpu");
        if Some(r.comm) == nic || Some(r.app) == nic {
            return Err(
                "placement: threads cannot run on nic_cpu, which runs only protocol work".into(),
            );
        }
        if r.driver != r.irq_target {
            return Err("placement.driver must be the processor that takes the interrupt (placement.irq_target)".into());
        }
        Ok(r)
    }
}
