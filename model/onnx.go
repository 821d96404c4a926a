package model

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/yinsh-zero/yinsh/env"
)

// ONNX export for game clients.
//
// The graph (opset ONNXOpset, IR version 7) has
//
//	inputs   planes  float32 [N, NumPlanes, 11, 11]   observations, as model.Net takes them
//	         mask    bool    [N, 2142]                legal actions
//	outputs  policy  float32 [N, 2142]                softmax over legal actions; illegal = 0 (a row
//	                                                  with no legal action is all zeros)
//	         wdl     float32 [N, 3]                   probabilities [win, draw, loss], side to act
//
// and batch norm folded into the convolutions (see Fold). metadata_props carry the encoding version,
// the action-space layout, the architecture, the training step and, when the checkpoint records
// them, the variant, run id and generation (keys in ONNXMetadata).
//
// The protobuf is written by a small hand-written encoder (below): the part of the ONNX schema we need
// is seven messages, and this keeps the default build free of protobuf code generation and
// dependencies. (Go ONNX libraries such as owulveryck/onnx-go bring gogo/protobuf generated code and a
// runtime we do not need, and are no longer maintained.)

// ONNXOpset is the default-domain opset of exported models.
const ONNXOpset = 13

// ONNX tensor element types and attribute types (onnx.proto).
const (
	onnxFloat = 1
	onnxBool  = 9

	attrFloat = 1
	attrInt   = 2
	attrInts  = 7
)

// ONNXMetadata returns the metadata_props of an exported model: yinsh.encoding_version,
// yinsh.num_planes, yinsh.num_actions, yinsh.action_layout, yinsh.wdl, yinsh.net (the architecture
// as JSON), yinsh.step, and yinsh.variant, yinsh.run_id, yinsh.generation when known.
func ONNXMetadata(m Metadata) map[string]string {
	net, _ := json.Marshal(m.Net)
	props := map[string]string{
		"yinsh.encoding_version": strconv.Itoa(m.EncodingVersion),
		"yinsh.num_planes":       strconv.Itoa(m.Net.InputPlanes),
		"yinsh.num_actions":      strconv.Itoa(env.NumActions),
		"yinsh.action_layout":    ActionLayout,
		"yinsh.wdl":              "win,draw,loss probabilities for the side to act",
		"yinsh.net":              string(net),
		"yinsh.step":             strconv.FormatInt(m.Step, 10),
	}
	// the variant, run and generation when the checkpoint records them (absent: unknown)
	if m.Variant != "" {
		props["yinsh.variant"] = m.Variant
	}
	if m.Run != nil {
		props["yinsh.run_id"] = m.Run.ID
		props["yinsh.generation"] = strconv.Itoa(m.Run.Generation)
	}
	return props
}

// EncodeONNX returns the ONNX model of a checkpoint (training checkpoints are folded first).
func EncodeONNX(c *Checkpoint) ([]byte, error) {
	f, err := Fold(c)
	if err != nil {
		return nil, err
	}
	cfg := f.Meta.Net
	g := &onnxGraph{}
	conv := func(in, prefix string, k int) string {
		out := prefix + ".out"
		pad := int64(k / 2)
		g.node("Conv", prefix, []string{in, prefix + ".weight", prefix + ".bias"}, []string{out},
			attrs{"kernel_shape": []int64{int64(k), int64(k)}, "pads": []int64{pad, pad, pad, pad}, "strides": []int64{1, 1}})
		g.init(prefix+".weight", f.Tensors[prefix+".weight"])
		g.init(prefix+".bias", f.Tensors[prefix+".bias"])
		return out
	}
	relu := func(in, name string) string {
		g.node("Relu", name, []string{in}, []string{name}, nil)
		return name
	}
	gemm := func(in, prefix string) string {
		out := prefix + ".out"
		g.node("Gemm", prefix, []string{in, prefix + ".weight", prefix + ".bias"}, []string{out}, attrs{"transB": int64(1)})
		g.init(prefix+".weight", f.Tensors[prefix+".weight"])
		g.init(prefix+".bias", f.Tensors[prefix+".bias"])
		return out
	}
	// gpool adds to y the pooled bias of x (Config.GlobalPool): Concat(GlobalAveragePool(x),
	// GlobalMaxPool(x)) [N, 2C, 1, 1] through a bias-free 1×1 Conv [cy, 2C, 1, 1], broadcast over cells.
	pooled := map[string]string{}
	pool := func(x string) string {
		if done, ok := pooled[x]; ok {
			return done
		}
		g.node("GlobalAveragePool", x+".gmean", []string{x}, []string{x + ".gmean"}, nil)
		g.node("GlobalMaxPool", x+".gmax", []string{x}, []string{x + ".gmax"}, nil)
		g.node("Concat", x+".gpool", []string{x + ".gmean", x + ".gmax"}, []string{x + ".gpool"}, attrs{"axis": int64(1)})
		pooled[x] = x + ".gpool"
		return x + ".gpool"
	}
	gpool := func(x, y, prefix string) string {
		if !cfg.GlobalPool {
			return y
		}
		w := f.Tensors[prefix+".gpool.weight"]
		g.init(prefix+".gpool.weight", &Tensor{Shape: []int{w.Shape[0], w.Shape[1], 1, 1}, Data: w.Data})
		g.node("Conv", prefix+".gpool", []string{pool(x), prefix + ".gpool.weight"}, []string{prefix + ".gpool.bias"},
			attrs{"kernel_shape": []int64{1, 1}})
		g.node("Add", prefix+".gpool.add", []string{y, prefix + ".gpool.bias"}, []string{prefix + ".gpool.out"}, nil)
		return prefix + ".gpool.out"
	}
	a := relu(conv("planes", "stem.conv", 3), "stem.relu")
	for i := 0; i < cfg.Blocks; i++ {
		p := fmt.Sprintf("tower.%d.", i)
		h := relu(conv(a, p+"conv1", 3), p+"relu1")
		h = gpool(h, h, p[:len(p)-1])
		t := conv(h, p+"conv2", 3)
		g.node("Add", p+"add", []string{t, a}, []string{p + "sum"}, nil)
		a = relu(p+"sum", p+"relu2")
	}
	// policy head: masked softmax
	ph := gpool(a, relu(conv(a, "policy.conv", 1), "policy.relu"), "policy")
	g.node("Flatten", "policy.flatten", []string{ph}, []string{"policy.flat"}, attrs{"axis": int64(1)})
	logits := gemm("policy.flat", "policy.fc")
	g.init("illegal_logit", &Tensor{Shape: []int{}, Data: []float32{-1e30}})
	g.init("zero", &Tensor{Shape: []int{}, Data: []float32{0}})
	g.node("Where", "policy.mask", []string{"mask", logits, "illegal_logit"}, []string{"policy.masked"}, nil)
	g.node("Softmax", "policy.softmax", []string{"policy.masked"}, []string{"policy.softmax"}, attrs{"axis": int64(1)})
	g.node("Where", "policy.zero_illegal", []string{"mask", "policy.softmax", "zero"}, []string{"policy"}, nil)
	// value head
	vh := gpool(a, relu(conv(a, "value.conv", 1), "value.relu"), "value")
	g.node("Flatten", "value.flatten", []string{vh}, []string{"value.flat"}, attrs{"axis": int64(1)})
	v1 := relu(gemm("value.flat", "value.fc1"), "value.relu1")
	v2 := gemm(v1, "value.fc2")
	g.node("Softmax", "value.softmax", []string{v2}, []string{"wdl"}, attrs{"axis": int64(1)})

	graph := protoBuf{}
	for _, n := range g.nodes {
		graph.bytes(1, n)
	}
	graph.str(2, "yinsh")
	for _, t := range g.inits {
		graph.bytes(5, t)
	}
	graph.bytes(11, valueInfo("planes", onnxFloat, "N", cfg.InputPlanes, BoardSize, BoardSize))
	graph.bytes(11, valueInfo("mask", onnxBool, "N", env.NumActions))
	graph.bytes(12, valueInfo("policy", onnxFloat, "N", env.NumActions))
	graph.bytes(12, valueInfo("wdl", onnxFloat, "N", NumWDL))

	m := protoBuf{}
	m.varint(1, 7) // ir_version 7 (ONNX 1.8) — opset 13
	m.str(2, "yinsh-zero")
	m.str(3, strconv.Itoa(env.EncodingVersion))
	m.varint(5, uint64(f.Meta.Step))
	m.str(6, "YINSH Zero policy/value network; see metadata_props yinsh.*")
	m.bytes(7, graph)
	opset := protoBuf{}
	opset.str(1, "")
	opset.varint(2, ONNXOpset)
	m.bytes(8, opset)
	props := ONNXMetadata(f.Meta)
	for _, k := range sortedKeys(props) {
		e := protoBuf{}
		e.str(1, k)
		e.str(2, props[k])
		m.bytes(14, e)
	}
	return m, nil
}

// WriteONNX exports a checkpoint as an ONNX model at path, atomically.
func WriteONNX(path string, c *Checkpoint) error {
	b, err := EncodeONNX(c)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

// WriteInference exports a checkpoint in inference form (batch norm folded, no optimiser state) as a
// safetensors file at path, atomically; model/policy loads it.
func WriteInference(path string, c *Checkpoint) error {
	f, err := Fold(c)
	if err != nil {
		return err
	}
	return WriteCheckpoint(path, f)
}

type attrs map[string]any

type onnxGraph struct {
	nodes []protoBuf
	inits []protoBuf
}

func (g *onnxGraph) node(op, name string, in, out []string, a attrs) {
	n := protoBuf{}
	for _, s := range in {
		n.str(1, s)
	}
	for _, s := range out {
		n.str(2, s)
	}
	n.str(3, name)
	n.str(4, op)
	for _, k := range sortedKeys(a) {
		at := protoBuf{}
		at.str(1, k)
		switch v := a[k].(type) {
		case int64:
			at.varint(3, uint64(v))
			at.varint(20, attrInt)
		case float32:
			at.fixed32(2, math.Float32bits(v))
			at.varint(20, attrFloat)
		case []int64:
			for _, x := range v {
				at.varint(8, uint64(x))
			}
			at.varint(20, attrInts)
		default:
			panic(fmt.Sprintf("onnx: attribute %s of type %T", k, v))
		}
		n.bytes(5, at)
	}
	g.nodes = append(g.nodes, n)
}

func (g *onnxGraph) init(name string, t *Tensor) {
	p := protoBuf{}
	for _, d := range t.Shape {
		p.varint(1, uint64(d))
	}
	p.varint(2, onnxFloat)
	p.str(8, name)
	raw := make([]byte, 0, 4*len(t.Data))
	for _, v := range t.Data {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	p.bytes(9, raw)
	g.inits = append(g.inits, p)
}

// valueInfo describes a graph input or output: a tensor of elemType whose first dimension is the
// symbolic batch size and the rest fixed.
func valueInfo(name string, elemType int, batch string, dims ...int) protoBuf {
	shape := protoBuf{}
	d := protoBuf{}
	d.str(2, batch)
	shape.bytes(1, d)
	for _, n := range dims {
		d := protoBuf{}
		d.varint(1, uint64(n))
		shape.bytes(1, d)
	}
	tt := protoBuf{}
	tt.varint(1, uint64(elemType))
	tt.bytes(2, shape)
	typ := protoBuf{}
	typ.bytes(1, tt)
	v := protoBuf{}
	v.str(1, name)
	v.bytes(2, typ)
	return v
}

// protoBuf is a protobuf message being encoded (wire format: tag = field<<3 | wire type; varints
// little-endian base 128; length-delimited fields for strings, bytes and sub-messages).
type protoBuf []byte

func (p *protoBuf) tag(field, wire int) { p.raw(uint64(field<<3 | wire)) }

func (p *protoBuf) raw(v uint64) { *p = binary.AppendUvarint(*p, v) }

// varint writes an int64/int32/enum field (negative values as ten-byte two's complement, as
// protobuf does).
func (p *protoBuf) varint(field int, v uint64) {
	p.tag(field, 0)
	p.raw(v)
}

func (p *protoBuf) fixed32(field int, v uint32) {
	p.tag(field, 5)
	*p = binary.LittleEndian.AppendUint32(*p, v)
}

func (p *protoBuf) bytes(field int, b []byte) {
	p.tag(field, 2)
	p.raw(uint64(len(b)))
	*p = append(*p, b...)
}

func (p *protoBuf) str(field int, s string) { p.bytes(field, []byte(s)) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
