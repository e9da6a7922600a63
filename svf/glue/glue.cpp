// C ABI over SVF 3.4 for pspa-svf: build the SVFIR of one bitcode file, run SVF's wave-diff
// Andersen, and report its facts under pspa's NODE labels (global:NAME, stack:F:VAR,
// heap:F:LINE, func:NAME, then .N or .*). Rust (src/main.rs) formats them as
// pspa.analysis/1. Labels are made here because only this side can read LLVM 21's view of
// the module; the rules follow src/frontend/ (and facts.rs's #N disambiguation).
#include "SVF-LLVM/LLVMModule.h"
#include "SVF-LLVM/LLVMUtil.h"
#include "SVF-LLVM/SVFIRBuilder.h"
#include "Util/CommandLine.h"
#include "Util/Options.h"
#include "WPA/Andersen.h"

#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>

#include <chrono>
#include <exception>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

using namespace SVF;

namespace {

// Kinds of record sent to Rust.
enum : int {
    POINTER = 'p',  // a = source variable (F::v or ::g), b = a NODE label it may point to
    MOD = 'm',      // a = function, b = label
    REF = 'r',      // a = function, b = label
    FUNCTION = 'f', // a = defined function (so that empty sets are reported too)
    VARIABLE = 'v', // a = source variable (so that empty sets are reported too)
    STAT = 's',     // a = name, b = value
    WARN = 'w',     // a = message
};

using Emit = void (*)(void *ctx, int kind, const char *a, const char *b);

// Mod/ref over SVF's points-to. SVF's own MRGenerator asserts on programs with memcpy-like
// calls (getRepPointsTo: "can not find superset of cpts"), so the sets are built here the
// way pspa builds them (src/modref.rs): the targets of each function's stores (mod) and
// loads (ref), SVF's models of external calls included, closed over SVF's call graph; a
// function's own stack objects are left out of its sets and its callers' unless it is
// recursive.
struct SideEffects {
    std::unordered_map<const FunObjVar *, NodeBS> mods, refs;
    // Each function's stack objects and their fields, found once.
    std::unordered_map<const FunObjVar *, NodeBS> locals;

    SideEffects(SVFIR *pag, AndersenWaveDiff *ander) {
        for (auto it = pag->begin(); it != pag->end(); ++it)
            if (SVFUtil::isa<ObjVar>(it->second))
                if (const BaseObjVar *b = pag->getBaseObject(it->first))
                    if (b->isStack() && b->getFunction()) locals[b->getFunction()].set(it->first);
        for (SVFStmt *st : pag->getSVFStmtSet(SVFStmt::Store)) {
            auto *s = SVFUtil::cast<StoreStmt>(st);
            if (const FunObjVar *f = function(s)) mods[f] |= ander->getPts(s->getLHSVarID()).toNodeBS();
        }
        for (SVFStmt *st : pag->getSVFStmtSet(SVFStmt::Load)) {
            auto *l = SVFUtil::cast<LoadStmt>(st);
            if (const FunObjVar *f = function(l)) refs[f] |= ander->getPts(l->getRHSVarID()).toNodeBS();
        }
        for (auto *m : {&mods, &refs}) {
            for (auto &[f, set] : *m) dropLocals(ander, f, set);
        }
        // Callers include their callees' effects, to a fixpoint (the call graph has cycles):
        // a worklist of functions whose sets grew, pushing their callers.
        CallGraph *cg = ander->getCallGraph();
        std::vector<const CallGraphNode *> work;
        std::set<const CallGraphNode *> queued;
        for (auto it = cg->begin(); it != cg->end(); ++it) {
            work.push_back(it->second);
            queued.insert(it->second);
        }
        while (!work.empty()) {
            const CallGraphNode *g = work.back();
            work.pop_back();
            queued.erase(g);
            const FunObjVar *callee = g->getFunction();
            for (auto *e : g->getInEdges()) {
                const CallGraphNode *fnode = e->getSrcNode();
                const FunObjVar *caller = fnode->getFunction();
                bool grew = false;
                for (auto *m : {&mods, &refs}) {
                    NodeBS add = (*m)[callee];
                    // The callee's locals die with its call, unless the caller is part of
                    // the same recursion.
                    if (!ander->inSameCallGraphSCC(caller, callee)) dropLocals(nullptr, callee, add);
                    grew |= (*m)[caller] |= add;
                }
                if (grew && queued.insert(fnode).second) work.push_back(fnode);
            }
        }
        // A callee may have written the caller's own locals through a pointer.
        for (auto *m : {&mods, &refs})
            for (auto &[f, set] : *m) dropLocals(ander, f, set);
    }

    static const FunObjVar *function(const SVFStmt *s) {
        return s->getICFGNode() ? s->getICFGNode()->getFun() : nullptr;
    }

    // Drop f's stack objects from set; with `ander`, only when f is not recursive.
    void dropLocals(AndersenWaveDiff *ander, const FunObjVar *f, NodeBS &set) {
        if (ander && ander->isInRecursion(f)) return;
        auto it = locals.find(f);
        if (it != locals.end()) set.intersectWithComplement(it->second);
    }
};

std::string debugName(llvm::AllocaInst *a) {
    for (auto *d : llvm::findDVRDeclares(a))
        if (auto *v = d->getVariable()) return v->getName().str();
    for (auto *d : llvm::findDbgDeclares(a))
        if (auto *v = d->getVariable()) return v->getName().str();
    return "";
}

unsigned line(const llvm::Instruction &i) {
    if (auto &dl = i.getDebugLoc()) return dl.getLine();
    return 0;
}

struct Labeller {
    LLVMModuleSet *llvm;
    SVFIR *pag;
    std::unordered_map<NodeID, std::string> base;  // SVF base object -> label without field
    std::map<std::string, unsigned> seen;           // for #N suffixes, in object order
    std::vector<std::pair<std::string, NodeID>> vars;  // source variables -> their object
    std::map<std::string, unsigned> seenVar;
    unsigned unmapped = 0;

    std::string unique(std::map<std::string, unsigned> &m, const std::string &l) {
        unsigned n = ++m[l];
        return n > 1 ? l + "#" + std::to_string(n) : l;
    }

    // An SVF object that stands for several LLVM values has no one pspa label.
    void name(NodeID id, const std::string &l) {
        auto [it, fresh] = base.emplace(id, l);
        if (!fresh) it->second = "svf:shared" + std::to_string(id);
    }

    bool object(const llvm::Value *v, NodeID &id) {
        auto &objs = llvm->objSyms();
        auto it = objs.find(v);
        if (it == objs.end()) return false;
        id = it->second;
        return true;
    }

    // Walk the module in pspa's object order: globals, then each function's instructions.
    void build(llvm::Module &m) {
        NodeID id;
        for (auto &g : m.globals()) {
            if (!object(&g, id)) continue;
            std::string l = unique(seen, "global:" + g.getName().str());
            name(id, l);
            if (g.getValueType()->isPointerTy())
                vars.emplace_back(unique(seenVar, "::" + g.getName().str()), id);
        }
        for (auto &f : m) {
            if (object(&f, id)) name(id, "func:" + f.getName().str());
        }
        for (auto &f : m) {
            std::string fn = f.getName().str();
            for (auto &bb : f)
                for (auto &i : bb) {
                    if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i)) {
                        if (!object(a, id)) continue;
                        std::string dn = debugName(a);
                        std::string var = dn.empty() ? a->getName().str() : dn;
                        name(id, unique(seen, "stack:" + fn + ":" + var));
                        if (!dn.empty() && a->getAllocatedType()->isPointerTy())
                            vars.emplace_back(unique(seenVar, fn + "::" + var), id);
                    } else if (llvm::isa<llvm::CallBase>(&i) && object(&i, id)) {
                        name(id, unique(seen, "heap:" + fn + ":" + std::to_string(line(i))));
                    }
                }
        }
    }

    // One element of an SVF points-to set as a NODE label.
    std::string label(NodeID o) {
        const SVFVar *v = pag->getGNode(o);
        NodeID b = o;
        long long field = 0;
        if (auto *g = SVFUtil::dyn_cast<GepObjVar>(v)) {
            b = g->getBaseNode();
            field = g->getConstantFieldIdx();
        }
        auto it = base.find(b);
        if (it == base.end() || it->second.rfind("svf:", 0) == 0) {
            ++unmapped;
            return (it == base.end() ? "svf:" + std::to_string(b) : it->second) + (b == o ? "" : "." + std::to_string(field));
        }
        const BaseObjVar *bo = pag->getBaseObject(b);
        bool fi = SVFUtil::isa<FunObjVar>(bo) || bo->isFieldInsensitive();
        return it->second + (fi ? std::string(".*") : "." + std::to_string(field));
    }
};

}  // namespace

extern "C" int pspa_svf_analyze(const char *path, int modref, void *ctx, Emit emit) {
    try {
        // SVF's defaults (wpa -ander), minus its statistics on stdout, and with one object per
        // constant global: by default SVF folds all string literals into one object, which
        // no pspa label can name.
        std::string a0 = "pspa-svf", a1 = "-stat=false", a2 = path, a3 = "-model-consts=true";
        char *argv[] = {a0.data(), a1.data(), a3.data(), a2.data(), nullptr};
        std::vector<std::string> modules = OptionBase::parseOptions(4, argv, "pspa-svf", "[options] <input>");
        auto t0 = std::chrono::steady_clock::now();
        LLVMModuleSet::buildSVFModule(modules);
        SVFIRBuilder builder;
        SVFIR *pag = builder.build();
        auto t1 = std::chrono::steady_clock::now();
        AndersenWaveDiff *ander = AndersenWaveDiff::createAndersenWaveDiff(pag);
        auto t2 = std::chrono::steady_clock::now();

        LLVMModuleSet *llvm = LLVMModuleSet::getLLVMModuleSet();
        Labeller lab{llvm, pag};
        // SVF links the bodies of its models of external functions (extapi.bc) into the
        // program: report only the functions the input itself defines.
        std::set<std::string> defined;
        {
            llvm::LLVMContext cx;
            llvm::SMDiagnostic err;
            if (auto lazy = llvm::getLazyIRFileModule(path, err, cx))
                for (auto &f : *lazy)
                    if (!f.isDeclaration()) defined.insert(f.getName().str());
        }
        std::vector<llvm::Module *> program{llvm->getMainLLVMModule()};
        for (llvm::Module *m : program) lab.build(*m);

        for (auto &[name, obj] : lab.vars) {
            emit(ctx, VARIABLE, name.c_str(), nullptr);
            for (NodeID o : ander->getPts(obj)) emit(ctx, POINTER, name.c_str(), lab.label(o).c_str());
        }

        if (modref) {
            SideEffects mr(pag, ander);
            for (llvm::Module *m : program)
                for (auto &f : *m) {
                    if (f.isDeclaration() || !defined.count(f.getName().str())) continue;
                    std::string fn = f.getName().str();
                    emit(ctx, FUNCTION, fn.c_str(), nullptr);
                    const FunObjVar *fv = llvm->getFunObjVar(&f);
                    for (NodeID o : mr.mods[fv]) emit(ctx, MOD, fn.c_str(), lab.label(o).c_str());
                    for (NodeID o : mr.refs[fv]) emit(ctx, REF, fn.c_str(), lab.label(o).c_str());
                }
        }
        auto t3 = std::chrono::steady_clock::now();
        auto ms = [](auto a, auto b) { return std::to_string(std::chrono::duration<double, std::milli>(b - a).count()); };
        emit(ctx, STAT, "build_ms", ms(t0, t1).c_str());
        emit(ctx, STAT, "solve_ms", ms(t1, t2).c_str());
        emit(ctx, STAT, "report_ms", ms(t2, t3).c_str());
        emit(ctx, STAT, "svf_nodes", std::to_string(pag->getTotalNodeNum()).c_str());
        emit(ctx, STAT, "unmapped_labels", std::to_string(lab.unmapped).c_str());
        if (lab.unmapped)
            emit(ctx, WARN, (std::to_string(lab.unmapped) + " points-to elements are SVF objects with no pspa counterpart (labelled svf:ID): SVF's dummy, black-hole and constant objects, and objects standing for several values").c_str(), nullptr);
        AndersenWaveDiff::releaseAndersenWaveDiff();
        SVFIR::releaseSVFIR();
        LLVMModuleSet::releaseLLVMModuleSet();
        return 0;
    } catch (const std::exception &e) {
        emit(ctx, WARN, e.what(), nullptr);
        return 1;
    } catch (...) {
        emit(ctx, WARN, "SVF threw an unknown exception", nullptr);
        return 1;
    }
}
